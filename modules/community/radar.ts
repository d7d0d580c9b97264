import type { Queryable } from '../../db/pool';
import type { ModuleDefinition } from '../module';
import { listWelfareDueContacts } from '../people/api';
import { todayUtc } from '../metrics';
import { listNoteFollowUps } from '../people/api';
import { getPastoralSettings } from '../people/api';
import { lifeEventsRadar } from '../people/api';
import { getCommunitySettings, listPrayerRequests, listRoster } from '../people/api';
import { droppedRegulars } from '../attendance/api';
import { listFollowupsDue } from '../guests/api';
import { radarContributions } from './extension-points';

export const RADAR_REASONS = ['welfare_due', 'note_follow_up', 'new_member', 'urgent_prayer', 'life_event', 'guest_follow_up', 'stopped_attending', 'missing_group_meetings'] as const;

/** A support life event with no pastoral contact for this many days shows on the radar (as on the life-events radar). */
const UNATTENDED_LIFE_EVENT_DAYS = 3;
export type RadarReason = (typeof RADAR_REASONS)[number];

export interface RadarItem {
  contactId: string;
  name: string;
  reason: RadarReason;
  /** A plain sentence with the figures; never the content of a note or request. */
  detail: string;
  /** The date that makes it due (last contact, follow-up date, joined on, asked on), YYYY-MM-DD. */
  since: string | null;
}

export interface RadarSource {
  source: string;
  status: 'included' | 'unavailable';
  count: number;
  reason: string | null;
}

/**
 * Who needs following up, across what people holds: welfare checks due (no pastoral contact for the
 * welfare interval), open note follow-ups due within `withinDays`, new members on the roster, active
 * urgent prayer requests, the life-events radar (upcoming, anniversaries, unattended, grief touchpoints due), guests whose
 * follow-up is due (the guests module's pipeline) and regulars who have stopped coming (the attendance module). Computed under the caller's view: restricted notes and requests count only
 * with people:safeguarding, exactly as the people tools decide.
 */
export async function followUpRadar(
  db: Queryable, orgId: string, options: { canSeeRestricted: boolean; withinDays: number; limitPerSource: number; modules: readonly ModuleDefinition[] },
): Promise<{ items: RadarItem[]; sources: RadarSource[]; welfareIntervalDays: number; newMemberWindowDays: number }> {
  const { canSeeRestricted, limitPerSource: limit } = options;
  const welfareIntervalDays = (await getPastoralSettings(db, orgId)).welfareIntervalDays;
  const { newMemberWindowDays } = await getCommunitySettings(db, orgId);
  const dueBy = new Date(Date.now() + options.withinDays * 86_400_000).toISOString().slice(0, 10);

  const welfare: RadarItem[] = (await listWelfareDueContacts(db, orgId, { days: welfareIntervalDays, limit, canSeeRestricted })).map((c) => ({
    contactId: c.contactId, name: c.name, reason: 'welfare_due' as const,
    detail: c.lastPastoralContactAt ? `${c.daysSinceContact} days since the last pastoral contact` : `No pastoral contact recorded since they were added ${c.daysSinceContact} days ago`,
    since: c.lastPastoralContactAt?.slice(0, 10) ?? null,
  }));
  const followUps: RadarItem[] = (await listNoteFollowUps(db, orgId, canSeeRestricted, { status: 'open', dueBefore: dueBy, limit })).map((n) => ({
    contactId: n.contactId, name: n.contactName, reason: 'note_follow_up' as const,
    detail: n.followUpDate! < todayUtc() ? `A note's follow-up was due on ${n.followUpDate}` : `A note's follow-up is due on ${n.followUpDate}`,
    since: n.followUpDate,
  }));
  const newMembers: RadarItem[] = (await listRoster(db, orgId, { status: 'current', joinedWithinDays: newMemberWindowDays, limit, offset: 0 })).members.map((m) => ({
    contactId: m.contactId, name: m.name, reason: 'new_member' as const, detail: `Joined the community on ${m.joinedOn}`, since: m.joinedOn,
  }));
  const urgent: RadarItem[] = (await listPrayerRequests(db, orgId, canSeeRestricted, { status: 'active', urgentOnly: true, limit })).map((p) => ({
    contactId: p.contactId, name: p.contactName, reason: 'urgent_prayer' as const, detail: `An urgent prayer request since ${p.createdAt.slice(0, 10)}`, since: p.createdAt.slice(0, 10),
  }));

  // Life events coming up within the same window, anniversaries, unattended support events and grief touchpoints due.
  const lifeEvents: RadarItem[] = (await lifeEventsRadar(db, orgId, canSeeRestricted, {
    today: todayUtc(), daysAhead: Math.max(1, options.withinDays), unattendedAfterDays: UNATTENDED_LIFE_EVENT_DAYS, limit,
  })).map((item) => ({ contactId: item.contactId, name: item.contactName, reason: 'life_event' as const, detail: item.why, since: item.date }));

  // Guests whose pipeline card is due by the window's end, and regulars absent four weeks (the same rules as those modules' own lists).
  const guests: RadarItem[] = (await listFollowupsDue(db, orgId, { by: dueBy, limit })).map((card) => ({
    contactId: card.contactId, name: card.guestName, reason: 'guest_follow_up' as const,
    detail: `Guest follow-up "${card.stageName}" ${card.dueDate < todayUtc() ? 'was' : 'is'} due on ${card.dueDate}`, since: card.dueDate,
  }));
  const stoppedAttending: RadarItem[] = (await droppedRegulars(db, orgId)).slice(0, limit).map((drop) => ({
    contactId: drop.contactId, name: drop.contactName, reason: 'stopped_attending' as const, detail: drop.reason, since: drop.lastVisit,
  }));

  const included: Array<[string, RadarItem[]]> = [
    ['welfare_due', welfare], ['note_follow_ups', followUps], ['new_members', newMembers], ['urgent_prayer', urgent], ['life_events', lifeEvents],
    ['guests', guests], ['attendance', stoppedAttending],
  ];
  // Sources other modules contribute (small groups: members missing meetings), each under its own name.
  for (const contribution of radarContributions()) {
    const items = (await contribution.items(db, orgId, { canSeeRestricted, limit })).map((item) => ({
      contactId: item.contactId, name: item.contactName, reason: contribution.reason, detail: item.detail, since: item.since,
    }));
    included.push([contribution.source, items]);
  }
  const sources: RadarSource[] = included.map(([source, items]) => ({ source, status: 'included' as const, count: items.length, reason: null }));
  return { items: included.flatMap(([, items]) => items), sources, welfareIntervalDays, newMemberWindowDays };
}
