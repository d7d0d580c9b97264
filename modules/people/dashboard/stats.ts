import { randomUUID } from 'node:crypto';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { countUnsubscribes, upcomingBirthdays } from '../contact-reports';
import { countByMembershipStatus, countContacts } from '../contacts';
import { displayNameOf } from '../display-name';
import { findDuplicatePairs } from '../merge';
import { RESTRICTED_NOTE_REMOVAL, visibleNoteSql } from '../notes';
import { RESTRICTED_ENTRY_SQL } from '../timeline';

/**
 * The people dashboard's figures, each computed from the organisation's live contacts and their
 * care timeline so a person can check it by hand. Timeline entries follow the same visibility rule
 * as people_list_care_timeline: restricted entries (private or amber/red notes, restricted pastoral
 * records) count and show only for a caller holding people:safeguarding.
 */

const DAY_MS = 86_400_000;
const isoDay = (date: Date) => date.toISOString().slice(0, 10);
export const todayUtc = () => isoDay(new Date());
export const addDays = (day: string, days: number) => isoDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));

/** A timeline entry (alias t, with notes joined as n) the caller may see: the rule people_list_care_timeline applies. */
export function visibleTimelineSql(canSeeRestricted: boolean): { join: string; where: string } {
  return {
    join: "LEFT JOIN notes n ON t.source_kind = 'note' AND n.id = t.source_id AND n.org_id = t.org_id",
    where: `(t.source_kind <> 'note' OR (n.id IS NOT NULL AND ${visibleNoteSql('n', canSeeRestricted)}))
      AND (${canSeeRestricted ? 'true' : 'false'} OR (t.source_kind <> '${RESTRICTED_NOTE_REMOVAL}' AND NOT t.restricted))`,
  };
}

type NameRow = { first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null };

// ---------------------------------------------------------------- headline figures

export async function analyticsStats(db: Queryable, orgId: string, days: number) {
  const to = todayUtc();
  const from = addDays(to, -(days - 1));
  const previousFrom = addDays(from, -days);
  const row = await queryOne<{ total: number; added: number; added_before: number; members: number; visitors: number; with_email: number; with_phone: number; subscribed: number; first_visits: number }>(db, `
    SELECT count(*)::int AS total,
      count(*) FILTER (WHERE created_at::date BETWEEN $2::date AND $3::date)::int AS added,
      count(*) FILTER (WHERE created_at::date BETWEEN $4::date AND $2::date - 1)::int AS added_before,
      count(*) FILTER (WHERE membership_status = 'member')::int AS members,
      count(*) FILTER (WHERE membership_status IN ('first_time_visitor', 'returning_visitor'))::int AS visitors,
      count(*) FILTER (WHERE email IS NOT NULL)::int AS with_email,
      count(*) FILTER (WHERE phone IS NOT NULL)::int AS with_phone,
      count(*) FILTER (WHERE status = 'subscribed')::int AS subscribed,
      count(*) FILTER (WHERE first_visit_date BETWEEN $2::date AND $3::date)::int AS first_visits
    FROM contacts WHERE org_id = $1 AND deleted_at IS NULL`, [orgId, from, to, previousFrom]);
  const counts = await queryOne<{ open_tasks: number; overdue_tasks: number; groups: number; tags: number; segments: number }>(db, `
    SELECT (SELECT count(*)::int FROM follow_up_tasks t JOIN contacts c ON c.id = t.contact_id AND c.deleted_at IS NULL WHERE t.org_id = $1 AND t.status = 'open') AS open_tasks,
      (SELECT count(*)::int FROM follow_up_tasks t JOIN contacts c ON c.id = t.contact_id AND c.deleted_at IS NULL WHERE t.org_id = $1 AND t.status = 'open' AND t.due_date < current_date) AS overdue_tasks,
      (SELECT count(*)::int FROM crm_groups WHERE org_id = $1 AND status = 'active') AS groups,
      (SELECT count(*)::int FROM tags WHERE org_id = $1) AS tags,
      (SELECT count(*)::int FROM segments WHERE org_id = $1) AS segments`, [orgId]);
  const r = row!;
  const pct = (n: number) => (r.total === 0 ? null : Math.round((n / r.total) * 1000) / 10);
  return {
    period: { from, to, days },
    totalContacts: r.total,
    newContacts: r.added,
    newContactsPreviousPeriod: r.added_before,
    members: r.members,
    visitors: r.visitors,
    firstVisits: r.first_visits,
    unsubscribes: (await countUnsubscribes(db, orgId, from, to)).unsubscribes,
    subscribed: r.subscribed,
    withEmailPercent: pct(r.with_email),
    withPhonePercent: pct(r.with_phone),
    openFollowUps: counts!.open_tasks,
    overdueFollowUps: counts!.overdue_tasks,
    activeGroups: counts!.groups,
    tags: counts!.tags,
    segments: counts!.segments,
  };
}

export async function contactStats(db: Queryable, orgId: string) {
  const { total, byStatus } = await countContacts(db, orgId);
  const byMembershipStatus = await countByMembershipStatus(db, orgId);
  const rows = await queryRows<{ gender: string; n: number }>(db,
    "SELECT COALESCE(gender, 'unknown') AS gender, count(*)::int AS n FROM contacts WHERE org_id = $1 AND deleted_at IS NULL GROUP BY 1", [orgId]);
  const reach = await queryOne<{ whatsapp: number; no_method: number; households: number; deleted: number }>(db, `
    SELECT count(*) FILTER (WHERE deleted_at IS NULL AND whatsapp_consent)::int AS whatsapp,
      count(*) FILTER (WHERE deleted_at IS NULL AND email IS NULL AND phone IS NULL AND address_line1 IS NULL)::int AS no_method,
      count(DISTINCT family_id) FILTER (WHERE deleted_at IS NULL)::int AS households,
      count(*) FILTER (WHERE deleted_at IS NOT NULL)::int AS deleted
    FROM contacts WHERE org_id = $1`, [orgId]);
  return {
    total, byStatus, byMembershipStatus,
    byGender: Object.fromEntries(rows.map((row) => [row.gender, row.n])),
    whatsappConsent: reach!.whatsapp, withNoContactMethod: reach!.no_method, households: reach!.households, softDeleted: reach!.deleted,
  };
}

// ---------------------------------------------------------------- chart

export const CHART_SERIES = {
  newContacts: 'Contacts added',
  firstVisits: 'First visits',
  activity: 'Care timeline entries',
  unsubscribes: 'Unsubscribes',
} as const;

/** One point per day (UTC) of the period ending today, for each series; days with nothing are 0, so a chart needs no gaps filled. */
export async function crmChart(db: Queryable, orgId: string, days: number, canSeeRestricted: boolean) {
  const to = todayUtc();
  const from = addDays(to, -(days - 1));
  const visible = visibleTimelineSql(canSeeRestricted);
  const rows = await queryRows<{ day: string; new_contacts: number; first_visits: number; activity: number; unsubscribes: number }>(db, `
    SELECT to_char(d, 'YYYY-MM-DD') AS day,
      (SELECT count(*)::int FROM contacts c WHERE c.org_id = $1 AND c.deleted_at IS NULL AND c.created_at >= d AND c.created_at < d + interval '1 day') AS new_contacts,
      (SELECT count(*)::int FROM contacts c WHERE c.org_id = $1 AND c.deleted_at IS NULL AND c.first_visit_date = d::date) AS first_visits,
      (SELECT count(*)::int FROM timeline_entries t ${visible.join} WHERE t.org_id = $1 AND t.occurred_at >= d AND t.occurred_at < d + interval '1 day' AND ${visible.where}) AS activity,
      (SELECT count(*)::int FROM contact_status_events e WHERE e.org_id = $1 AND e.to_status = 'unsubscribed' AND e.occurred_at >= d AND e.occurred_at < d + interval '1 day') AS unsubscribes
    FROM generate_series($2::date::timestamp AT TIME ZONE 'UTC', $3::date::timestamp AT TIME ZONE 'UTC', interval '1 day') AS d
    ORDER BY d`, [orgId, from, to]);
  const series = (Object.keys(CHART_SERIES) as Array<keyof typeof CHART_SERIES>).map((key) => {
    const column = ({ newContacts: 'new_contacts', firstVisits: 'first_visits', activity: 'activity', unsubscribes: 'unsubscribes' } as const)[key];
    const points = rows.map((row) => ({ date: row.day, value: row[column] }));
    return { key, label: CHART_SERIES[key], points, total: points.reduce((sum, point) => sum + point.value, 0) };
  });
  return { period: { from, to, days }, series, includesRestricted: canSeeRestricted };
}

// ---------------------------------------------------------------- activity

export async function recentActivities(db: Queryable, orgId: string, options: { limit: number; days: number; canSeeRestricted: boolean }) {
  const visible = visibleTimelineSql(options.canSeeRestricted);
  const rows = await queryRows<NameRow & { id: string; contact_id: string; kind: string; summary: string; occurred_at: Date; restricted: boolean }>(db, `
    SELECT t.id, t.contact_id, t.kind, t.summary, t.occurred_at, ${RESTRICTED_ENTRY_SQL} AS restricted, c.first_name, c.last_name, c.preferred_name, c.email
    FROM timeline_entries t JOIN contacts c ON c.id = t.contact_id AND c.org_id = t.org_id AND c.deleted_at IS NULL ${visible.join}
    WHERE t.org_id = $1 AND t.occurred_at >= now() - make_interval(days => $3) AND ${visible.where}
    ORDER BY t.occurred_at DESC, t.id DESC LIMIT $2`, [orgId, options.limit, options.days]);
  return rows.map((row) => ({
    id: row.id, contactId: row.contact_id, contactName: displayNameOf(row), kind: row.kind, summary: row.summary, occurredAt: row.occurred_at.toISOString(),
    restricted: row.restricted === true,
  }));
}

/** Active: a visible care timeline entry within 30 days; cooling: 31 to 90; quiet: none for over 90 days (or never). */
export async function engagementOverview(db: Queryable, orgId: string, canSeeRestricted: boolean) {
  const visible = visibleTimelineSql(canSeeRestricted);
  const row = await queryOne<{ total: number; active: number; cooling: number; quiet: number; in_group: number; tagged: number; in_segment: number; subscribed: number }>(db, `
    WITH last AS (
      SELECT c.id, c.status,
        (SELECT max(t.occurred_at) FROM timeline_entries t ${visible.join} WHERE t.org_id = c.org_id AND t.contact_id = c.id AND ${visible.where}) AS last_at
      FROM contacts c WHERE c.org_id = $1 AND c.deleted_at IS NULL
    )
    SELECT count(*)::int AS total,
      count(*) FILTER (WHERE last_at >= now() - interval '30 days')::int AS active,
      count(*) FILTER (WHERE last_at < now() - interval '30 days' AND last_at >= now() - interval '90 days')::int AS cooling,
      count(*) FILTER (WHERE last_at IS NULL OR last_at < now() - interval '90 days')::int AS quiet,
      count(*) FILTER (WHERE EXISTS (SELECT 1 FROM crm_group_members m WHERE m.org_id = $1 AND m.contact_id = last.id))::int AS in_group,
      count(*) FILTER (WHERE EXISTS (SELECT 1 FROM contact_tags ct WHERE ct.org_id = $1 AND ct.contact_id = last.id))::int AS tagged,
      count(*) FILTER (WHERE EXISTS (SELECT 1 FROM segment_members sm WHERE sm.org_id = $1 AND sm.contact_id = last.id))::int AS in_segment,
      count(*) FILTER (WHERE status = 'subscribed')::int AS subscribed
    FROM last`, [orgId]);
  const r = row!;
  const pct = (n: number) => (r.total === 0 ? null : Math.round((n / r.total) * 1000) / 10);
  return {
    total: r.total,
    bands: { active: r.active, cooling: r.cooling, quiet: r.quiet },
    definitions: {
      active: 'A care timeline entry in the last 30 days', cooling: 'The latest entry 31 to 90 days ago', quiet: 'No entry for over 90 days, or none ever',
    },
    inAGroupPercent: pct(r.in_group), taggedPercent: pct(r.tagged), inASegmentPercent: pct(r.in_segment), subscribedPercent: pct(r.subscribed),
    includesRestricted: canSeeRestricted,
  };
}

// ---------------------------------------------------------------- smart content

export async function smartBirthdays(db: Queryable, orgId: string, days: number, limit: number) {
  return upcomingBirthdays(db, orgId, days, limit);
}

export async function smartNewMembers(db: Queryable, orgId: string, days: number, limit: number) {
  const rows = await queryRows<NameRow & { id: string; membership_date: string | null; created_at: Date; membership_status: string | null }>(db, `
    SELECT id, first_name, last_name, preferred_name, email, membership_status, to_char(membership_date, 'YYYY-MM-DD') AS membership_date, created_at
    FROM contacts WHERE org_id = $1 AND deleted_at IS NULL AND membership_status = 'member'
      AND COALESCE(membership_date, created_at::date) >= current_date - $2::int
    ORDER BY COALESCE(membership_date, created_at::date) DESC, id LIMIT $3`, [orgId, days, limit]);
  return rows.map((row) => ({
    contactId: row.id, displayName: displayNameOf(row), membershipDate: row.membership_date,
    since: row.membership_date ?? isoDay(row.created_at),
  }));
}

/** Findings worth a person's look, each with its count, the rule behind it, a few contacts and the tool that acts on it. */
export async function smartDiscoveries(db: Queryable, orgId: string, sampleSize: number) {
  const discoveries: Array<{ kind: string; title: string; count: number; rule: string; tool: string; sample: Array<{ contactId: string; displayName: string }> }> = [];
  const sampleOf = async (where: string) => {
    const count = (await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM contacts c WHERE c.org_id = $1 AND c.deleted_at IS NULL AND ${where}`, [orgId]))!.n;
    const rows = await queryRows<NameRow & { id: string }>(db, `SELECT c.id, c.first_name, c.last_name, c.preferred_name, c.email FROM contacts c
      WHERE c.org_id = $1 AND c.deleted_at IS NULL AND ${where} ORDER BY c.created_at DESC, c.id LIMIT $2`, [orgId, sampleSize]);
    return { count, sample: rows.map((row) => ({ contactId: row.id, displayName: displayNameOf(row) })) };
  };
  const add = async (kind: string, title: string, rule: string, tool: string, where: string) => {
    const found = await sampleOf(where);
    if (found.count > 0) discoveries.push({ kind, title, rule, tool, ...found });
  };
  await add('visitors_without_follow_up', 'Visitors nobody is following up', 'First-time or returning visitors with no follow-up task, open or done',
    'people_list_welcome_desk_visitors', "c.membership_status IN ('first_time_visitor', 'returning_visitor') AND NOT EXISTS (SELECT 1 FROM follow_up_tasks f WHERE f.org_id = c.org_id AND f.contact_id = c.id)");
  await add('unreachable', 'People we cannot reach', 'No email, phone or postal address', 'people_update_contact',
    'c.email IS NULL AND c.phone IS NULL AND c.address_line1 IS NULL');
  await add('members_not_serving', 'Members in no team', 'Members who belong to no ministry team (CRM group)', 'people_add_crm_group_member',
    "c.membership_status = 'member' AND NOT EXISTS (SELECT 1 FROM crm_group_members m WHERE m.org_id = c.org_id AND m.contact_id = c.id)");
  await add('birthdays_this_week', 'Birthdays in the next 7 days', 'Date of birth falls in the next 7 days', 'people_get_smart_content_birthdays',
    "c.date_of_birth IS NOT NULL AND (c.date_of_birth + make_interval(years => extract(year FROM age(current_date - 1, c.date_of_birth))::int + 1))::date <= current_date + 7");
  await add('no_stage', 'Contacts with no stage', 'No Welcome Desk stage (membership status) recorded', 'people_bulk_update_contacts', 'c.membership_status IS NULL');
  const pairs = await findDuplicatePairs(db, orgId, 200);
  if (pairs.length > 0) {
    discoveries.push({
      kind: 'likely_duplicates', title: 'Likely duplicates', count: pairs.length, rule: 'Two live contacts sharing an email, a phone number (last ten digits) or a first and last name',
      tool: 'people_merge_data_quality_contacts',
      sample: pairs.slice(0, sampleSize).map((pair) => ({ contactId: pair.mergeContactId, displayName: pair.mergeName })),
    });
  }
  return discoveries;
}

// ---------------------------------------------------------------- newcomer journey and stalls

export const JOURNEY_STAGES = ['first_time_visitor', 'returning_visitor', 'regular_attender', 'member'] as const;
const STALLABLE = ['first_time_visitor', 'returning_visitor'];

export interface StalledContact {
  contactId: string;
  displayName: string;
  stage: string;
  inJourneySince: string;
  daysInStage: number;
  lastActivityAt: string | null;
  openFollowUps: number;
  reason: string;
}

/**
 * Stalled: a first-time or returning visitor whose journey began (first visit, else when added) more than
 * `stallDays` ago, with no visible care timeline entry and no follow-up task completed in the last `stallDays`.
 */
export async function stalledContacts(db: Queryable, orgId: string, options: { stallDays: number; limit: number; canSeeRestricted: boolean }): Promise<StalledContact[]> {
  const visible = visibleTimelineSql(options.canSeeRestricted);
  const rows = await queryRows<NameRow & { id: string; stage: string; since: string; days: number; last_at: Date | null; open_tasks: number }>(db, `
    SELECT * FROM (
      SELECT c.id, c.first_name, c.last_name, c.preferred_name, c.email, c.membership_status AS stage,
        to_char(COALESCE(c.first_visit_date, c.created_at::date), 'YYYY-MM-DD') AS since,
        (current_date - COALESCE(c.first_visit_date, c.created_at::date))::int AS days,
        GREATEST(
          (SELECT max(t.occurred_at) FROM timeline_entries t ${visible.join} WHERE t.org_id = c.org_id AND t.contact_id = c.id AND ${visible.where}),
          (SELECT max(f.completed_at) FROM follow_up_tasks f WHERE f.org_id = c.org_id AND f.contact_id = c.id)
        ) AS last_at,
        (SELECT count(*)::int FROM follow_up_tasks f WHERE f.org_id = c.org_id AND f.contact_id = c.id AND f.status = 'open') AS open_tasks
      FROM contacts c WHERE c.org_id = $1 AND c.deleted_at IS NULL AND c.membership_status = ANY($4::text[])
    ) s
    WHERE s.days > $2 AND (s.last_at IS NULL OR s.last_at < now() - make_interval(days => $2))
    ORDER BY s.days DESC, s.id LIMIT $3`, [orgId, options.stallDays, options.limit, STALLABLE]);
  return rows.map((row) => ({
    contactId: row.id, displayName: displayNameOf(row), stage: row.stage, inJourneySince: row.since, daysInStage: row.days,
    lastActivityAt: row.last_at?.toISOString() ?? null, openFollowUps: row.open_tasks,
    reason: `${row.stage.replace(/_/g, ' ')} since ${row.since} (${row.days} days); ${row.last_at ? `last activity ${isoDay(row.last_at)}` : 'no activity recorded'}; ${row.open_tasks} open follow-up(s)`,
  }));
}

export async function integrationOverview(db: Queryable, orgId: string, options: { stalled: boolean; stallDays: number; limit: number; canSeeRestricted: boolean }) {
  const stages = await countByMembershipStatus(db, orgId);
  const funnel = JOURNEY_STAGES.map((stage) => ({ stage, contacts: stages[stage] ?? 0 }));
  const firstVisits = await queryOne<{ last30: number; came_back: number }>(db, `
    SELECT count(*) FILTER (WHERE first_visit_date >= current_date - 30)::int AS last30,
      count(*) FILTER (WHERE first_visit_date IS NOT NULL AND membership_status IN ('returning_visitor', 'regular_attender', 'member'))::int AS came_back
    FROM contacts WHERE org_id = $1 AND deleted_at IS NULL`, [orgId]);
  const everVisited = (await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND deleted_at IS NULL AND first_visit_date IS NOT NULL', [orgId]))!.n;
  const stalled = await stalledContacts(db, orgId, { ...options, limit: options.stalled ? options.limit : 1000 });
  return {
    funnel,
    firstVisitsLast30Days: firstVisits!.last30,
    cameBackPercent: everVisited === 0 ? null : Math.round((firstVisits!.came_back / everVisited) * 1000) / 10,
    stallDays: options.stallDays,
    stalledCount: stalled.length,
    stalledRule: `A first-time or returning visitor whose journey began over ${options.stallDays} days ago, with no care timeline entry and no follow-up completed in the last ${options.stallDays} days`,
    ...(options.stalled ? { stalled } : {}),
  };
}

/** Opens a Welcome Desk follow-up task for each stalled contact that has none open; a second run opens none twice. */
export async function runStallDetection(db: Queryable, orgId: string, options: { stallDays: number; limit: number; openFollowUps: boolean; canSeeRestricted: boolean }) {
  const stalled = await stalledContacts(db, orgId, options);
  const opened: string[] = [];
  if (options.openFollowUps) {
    for (const contact of stalled) {
      if (contact.openFollowUps > 0) continue;
      const result = await db.query(`INSERT INTO follow_up_tasks (id, org_id, contact_id, title, due_date)
        SELECT $1, $2, $3, $4, current_date + 3 WHERE NOT EXISTS (SELECT 1 FROM follow_up_tasks WHERE org_id = $2 AND contact_id = $3 AND status = 'open')`,
      [randomUUID(), orgId, contact.contactId, `Reconnect with ${contact.displayName}: ${contact.daysInStage} days as a ${contact.stage.replace(/_/g, ' ')} with no activity`]);
      if ((result.rowCount ?? 0) > 0) opened.push(contact.contactId);
    }
  }
  return { stallDays: options.stallDays, stalled, followUpsOpened: opened.length, openedFor: opened };
}
