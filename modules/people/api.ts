/**
 * The people module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/people/), and names 'people' in its `uses`.
 */
export { listWelfareDueContacts } from './automations';
export { HAPPENINGS_LIMIT, assertValidRules, birthdaysOn, contactMatchesRules, contactNames, contactsCreatedSince, firstVisitsSince, lifeEventsRecordedSince, openFollowUpTask } from './automation-sources';
export type { ContactHappening } from './automation-sources';
export { createContact, displayNameOf, findLikelyDuplicates, listContacts, lockContactsForUpdate, requireContact, setConsentProjection } from './contacts';
export { addGroupMember, listGroupMembers, requireGroup } from './crm-groups';
export { parseOrgDate } from './dates';
export { listHousehold } from './family';
export { assertNoteMentionsNamesNotIds, listNoteFollowUps } from './notes';
export { loadDeliveryContact } from './outreach';
export type { DeliveryContact } from './outreach';
export { crisisHoldRefusal, isOnCrisisHold } from './pastoral/care/crisis';
export { hasCurrentSafeguardingCheck } from './pastoral/care/safeguarding';
export { getPastoralSettings } from './pastoral/care/settings';
export { requireVisibleLifeEvent } from './pastoral/life-events/public';
export type { LifeEvent } from './pastoral/life-events/public';
export { lifeEventsRadar } from './pastoral/life-events/radar';
export { addPrayerRequest } from './pastoral/prayer-visits/prayer';
export { countRoster, findShareablePrayerRequest, getCommunitySettings, getMembership, listPrayerRequests, listRoster, markShareablePrayerAnswered, setCommunityMemberships } from './pastoral/prayer-visits/public';
export { canSeeRestricted } from './pastoral/privacy';
export type { Contact } from './schemas';
export { listSegmentContacts, requireSegment } from './segments';
export { ruleSetSchema, type RuleSet } from './segment-rules';
export { addContactTags, requireTag } from './tags';
export { memberViewerPass, memberWatchPath, verifyMemberViewerPass } from './portal/live-pass';
