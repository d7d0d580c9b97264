import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { requireContact } from '../contacts';
import { contactAttendanceSource, contactMessageSource } from '../extension-points';
import { listFamily, listHousehold } from '../family';
import { visibleNoteSql } from '../notes';
import { getMembership } from '../pastoral/prayer-visits/roster';
import { listTimeline, restrictedEntryIds } from '../timeline';
import { addDays, todayUtc, visibleTimelineSql } from './stats';

/**
 * A contact's profile page as tools: the record with household, family, teams, segments and open
 * follow-ups; a short summary; the care timeline; messages sent to them; their groups tab and
 * attendance. Everything reads the people module's services; messages and attendance come from
 * the modules that hold them through people's extension points. Restricted timeline entries and
 * notes count and show only for a caller holding people:safeguarding.
 */

export async function contactGroups(db: Queryable, orgId: string, contactId: string) {
  await requireContact(db, orgId, contactId);
  const groups = await queryRows<{ id: string; name: string; status: string; role: string | null; joined_at: Date }>(db, `
    SELECT g.id, g.name, g.status, m.role, m.joined_at FROM crm_group_members m JOIN crm_groups g ON g.id = m.group_id AND g.org_id = m.org_id
    WHERE m.org_id = $1 AND m.contact_id = $2 ORDER BY lower(g.name)`, [orgId, contactId]);
  const segments = await queryRows<{ id: string; name: string; source: string; added_at: Date }>(db, `
    SELECT s.id, s.name, sm.source, sm.added_at FROM segment_members sm JOIN segments s ON s.id = sm.segment_id AND s.org_id = sm.org_id
    WHERE sm.org_id = $1 AND sm.contact_id = $2 ORDER BY lower(s.name)`, [orgId, contactId]);
  const membership = await getMembership(db, orgId, contactId);
  return {
    contactId,
    groups: groups.map((g) => ({ groupId: g.id, name: g.name, status: g.status, role: g.role, joinedAt: g.joined_at.toISOString() })),
    segments: segments.map((s) => ({ segmentId: s.id, name: s.name, how: s.source as 'rule' | 'manual', addedAt: s.added_at.toISOString() })),
    community: membership ? { member: membership.leftOn === null, joinedOn: membership.joinedOn, leftOn: membership.leftOn, celebrationConsent: membership.celebrationConsent } : null,
  };
}

async function openFollowUps(db: Queryable, orgId: string, contactId: string) {
  return queryRows<{ id: string; title: string; due_date: string | null }>(db, `
    SELECT id, title, to_char(due_date, 'YYYY-MM-DD') AS due_date FROM follow_up_tasks WHERE org_id = $1 AND contact_id = $2 AND status = 'open'
    ORDER BY due_date NULLS LAST, created_at`, [orgId, contactId]);
}

export async function contactProfile(db: Queryable, orgId: string, contactId: string, canSeeRestricted: boolean) {
  const contact = await requireContact(db, orgId, contactId);
  const household = await listHousehold(db, orgId, contactId);
  const family = await listFamily(db, orgId, contactId);
  const tab = await contactGroups(db, orgId, contactId);
  const tasks = await openFollowUps(db, orgId, contactId);
  const recent = await listTimeline(db, orgId, contactId, canSeeRestricted, 5);
  const qr = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM people_member_qr_tokens WHERE org_id = $1 AND contact_id = $2 AND revoked_at IS NULL', [orgId, contactId]);
  return {
    contact,
    household: household.members.filter((member) => member.contactId !== contactId),
    family,
    groups: tab.groups.map(({ groupId, name, role }) => ({ groupId, name, role })),
    segments: tab.segments.map(({ segmentId, name }) => ({ segmentId, name })),
    community: tab.community,
    openFollowUps: tasks.map((task) => ({ taskId: task.id, title: task.title, dueDate: task.due_date })),
    recentActivity: recent.map(({ kind, summary, occurredAt }) => ({ kind, summary, occurredAt })),
    hasActiveMemberQr: qr!.n > 0,
    includesRestricted: canSeeRestricted,
    restrictedEntryIds: restrictedEntryIds(recent),
  };
}

export async function contactSummary(db: Queryable, orgId: string, contactId: string, canSeeRestricted: boolean) {
  const contact = await requireContact(db, orgId, contactId);
  const visible = visibleTimelineSql(canSeeRestricted);
  const row = await queryOne<{ entries: number; last_at: Date | null; notes: number; groups: number; age: number | null; days_known: number }>(db, `
    SELECT
      (SELECT count(*)::int FROM timeline_entries t ${visible.join} WHERE t.org_id = $1 AND t.contact_id = $2 AND ${visible.where}) AS entries,
      (SELECT max(t.occurred_at) FROM timeline_entries t ${visible.join} WHERE t.org_id = $1 AND t.contact_id = $2 AND ${visible.where}) AS last_at,
      (SELECT count(*)::int FROM notes n WHERE n.org_id = $1 AND n.contact_id = $2 AND ${visibleNoteSql('n', canSeeRestricted)}) AS notes,
      (SELECT count(*)::int FROM crm_group_members m WHERE m.org_id = $1 AND m.contact_id = $2) AS groups,
      (SELECT extract(year FROM age(current_date, c.date_of_birth))::int FROM contacts c WHERE c.id = $2 AND c.org_id = $1) AS age,
      (SELECT (current_date - c.created_at::date)::int FROM contacts c WHERE c.id = $2 AND c.org_id = $1) AS days_known`, [orgId, contactId]);
  const r = row!;
  const tasks = await openFollowUps(db, orgId, contactId);
  const stage = contact.membershipStatus?.replace(/_/g, ' ') ?? 'no stage recorded';
  const parts = [
    `${contact.displayName}: ${stage}`,
    r.age !== null ? `aged ${r.age}` : null,
    contact.membershipDate ? `member since ${contact.membershipDate}` : null,
    contact.tags.length ? `tagged ${contact.tags.join(', ')}` : null,
    `${r.groups} team(s)`,
    r.last_at ? `last activity ${r.last_at.toISOString().slice(0, 10)}` : 'no activity recorded',
    tasks.length ? `${tasks.length} open follow-up(s)` : null,
  ].filter(Boolean);
  return {
    contactId, displayName: contact.displayName, membershipStatus: contact.membershipStatus, status: contact.status, age: r.age,
    daysKnown: r.days_known, tags: contact.tags, teams: r.groups, notes: r.notes, timelineEntries: r.entries,
    lastActivityAt: r.last_at?.toISOString() ?? null, openFollowUps: tasks.length,
    reachable: { email: contact.email !== null, phone: contact.phone !== null, post: contact.addressLine1 !== null, whatsapp: contact.whatsappConsent },
    summary: `${parts.join('; ')}.`,
    includesRestricted: canSeeRestricted,
  };
}

export async function contactEmails(db: Queryable, orgId: string, contactId: string, options: { channel: 'email' | 'all'; limit: number }) {
  const contact = await requireContact(db, orgId, contactId);
  const source = contactMessageSource();
  const messages = source ? await source.list(db, orgId, contactId, { channel: options.channel === 'all' ? undefined : options.channel, limit: options.limit }) : [];
  return { contactId, address: contact.email, available: source !== undefined, messages };
}

export async function contactAttendance(db: Queryable, orgId: string, contactId: string, range: { from?: string; to?: string }) {
  await requireContact(db, orgId, contactId);
  const to = range.to ?? todayUtc();
  const from = range.from ?? addDays(to, -182);
  const source = contactAttendanceSource();
  if (!source) return { contactId, from, to, available: false, services: 0, weeksAttended: 0, firstVisit: null, lastVisit: null, visits: [] };
  return { contactId, from, to, available: true, ...(await source.history(db, orgId, contactId, { from, to })) };
}

/** The profile's timeline tab: care timeline entries, messages sent and services attended, as one feed, newest first. */
export async function contactTimeline(db: Queryable, orgId: string, contactId: string, options: { limit: number; include: ReadonlyArray<'care' | 'messages' | 'attendance'>; canSeeRestricted: boolean }) {
  await requireContact(db, orgId, contactId);
  const feed: Array<{ at: string; source: 'care' | 'messages' | 'attendance'; kind: string; summary: string; careEntryId?: string; restricted?: boolean }> = [];
  if (options.include.includes('care')) {
    for (const entry of await listTimeline(db, orgId, contactId, options.canSeeRestricted, options.limit)) {
      feed.push({ at: entry.occurredAt, source: 'care', kind: entry.kind, summary: entry.summary, careEntryId: entry.id, restricted: entry.restricted });
    }
  }
  const messages = contactMessageSource();
  if (options.include.includes('messages') && messages) {
    for (const message of await messages.list(db, orgId, contactId, { limit: options.limit })) {
      feed.push({ at: message.sentAt ?? message.createdAt, source: 'messages', kind: `${message.channel}_${message.status}`, summary: message.subject ?? message.preview });
    }
  }
  const attendance = contactAttendanceSource();
  if (options.include.includes('attendance') && attendance) {
    const to = todayUtc();
    const history = await attendance.history(db, orgId, contactId, { from: addDays(to, -365), to });
    for (const visit of history.visits) {
      feed.push({ at: `${visit.localDate}T00:00:00.000Z`, source: 'attendance', kind: visit.firstTime ? 'first_visit' : 'attended', summary: `Attended ${visit.title ?? 'a service'}${visit.locations.length ? ` (${visit.locations.join(', ')})` : ''}` });
    }
  }
  feed.sort((a, b) => b.at.localeCompare(a.at));
  const shown = feed.slice(0, options.limit);
  return {
    contactId, entries: shown.map(({ at, source, kind, summary }) => ({ at, source, kind, summary })),
    restrictedEntryIds: shown.filter((entry) => entry.restricted).map((entry) => entry.careEntryId!),
    sources: { care: options.include.includes('care'), messages: options.include.includes('messages') && messages !== undefined, attendance: options.include.includes('attendance') && attendance !== undefined },
    includesRestricted: options.canSeeRestricted,
  };
}
