/**
 * What the community module may use of prayer requests and the roster: service functions only,
 * never the tables (lint:boundaries). The prayer wall also joins the `shareable_prayer_requests`
 * view people publishes.
 */
export { findShareablePrayerRequest, listPrayerRequests, markShareablePrayerAnswered } from './prayer';
export { countRoster, getCommunitySettings, getMembership, listRoster, setCommunityMemberships, type RosterMember } from './roster';
export { countRecentVisits } from './visits';
