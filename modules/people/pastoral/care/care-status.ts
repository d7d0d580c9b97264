import { z } from 'zod';
import { StewardError } from '../../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../../db/pool';
import { careSignalSources } from '../../extension-points';
import { listWelfareDueContacts } from '../../automations';
import type { RowOf } from '../../../kit';
import { displayNameOf } from '../../contacts';
import type { Contact } from '../../models/contacts';
import { visibleNoteSql } from '../../notes';
import { visibleRecordSql } from '../privacy';
import { heldContactIds } from './crisis';
import { getPastoralSettings } from './settings';
import { CARE_PRIORITIES, contactsWithPriority, currentPriorityOf, listCareAssignments, listCareRoles, type CareAssignment } from './team';

/**
 * How a contact's care stands, the care team at a glance, and who may need care soon. Every figure
 * is computed under the caller's view: private and confidential records (notes, life events,
 * touchpoints, visits) count only for a caller holding people:safeguarding, as they are shown.
 */

/** Pastoral records other parts keep; read when their tables exist (they are this module's own tables). */
export async function tableExists(db: Queryable, table: string): Promise<boolean> {
  const row = await queryOne<{ present: boolean }>(db, 'SELECT to_regclass($1) IS NOT NULL AS present', [`public.${table}`]);
  return row!.present;
}

/** How far back a support life event still counts as recent, and how far ahead a grief touchpoint counts as coming due. */
export const RECENT_LIFE_EVENT_DAYS = 90;
export const TOUCHPOINT_HORIZON_DAYS = 7;

export const CARE_SIGNALS = ['no_recent_contact', 'support_life_event', 'grief_touchpoint_due', 'care_priority', 'crisis_hold', 'stopped_attending'] as const;
export type CareSignal = (typeof CARE_SIGNALS)[number];

export const carePredictionSchema = z.object({
  contactId: z.uuid(),
  contactName: z.string(),
  reasons: z.array(z.object({ signal: z.enum(CARE_SIGNALS), detail: z.string().describe('The figures behind it, in words') }).strict())
    .describe('Why this person is listed; more reasons list them first. There is no score'),
}).strict();

export const contactCareStatusSchema = z.object({
  contactId: z.uuid(),
  contactName: z.string(),
  priority: z.enum(CARE_PRIORITIES),
  priorityReason: z.string().nullable(),
  prioritySetAt: z.string().nullable(),
  carers: z.array(z.object({ assignmentId: z.uuid(), roleName: z.string(), userId: z.uuid(), memberEmail: z.string(), memberName: z.string().nullable() }).strict())
    .describe('Team members assigned to this person'),
  onCrisisHold: z.boolean().describe('Messages to them wait for a person (people_list_crisis_holds)'),
  lastPastoralContactAt: z.string().nullable(),
  daysSinceContact: z.number().int(),
  welfareDue: z.boolean().describe('daysSinceContact has reached the welfare interval'),
  welfareIntervalDays: z.number().int(),
  openNoteFollowUps: z.number().int(),
  pendingOutreach: z.number().int().describe('Messages to them waiting for approval or sending'),
}).strict();

export async function contactCareStatus(db: Queryable, orgId: string, contactId: string, canSeeRestricted: boolean): Promise<z.infer<typeof contactCareStatusSchema>> {
  const contact = await queryOne<{ first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(db,
    'SELECT first_name, last_name, preferred_name, email FROM contacts WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [orgId, contactId]);
  if (!contact) throw new StewardError('not_found', `Contact ${contactId} was not found`, { hint: 'Find contacts with people_search_contacts.' });
  const settings = await getPastoralSettings(db, orgId);
  // Any gap at all (a negative number of days also admits a future-dated entry, e.g. a life event ahead), so the contact is always found.
  const [contactHistory] = await listWelfareDueContacts(db, orgId, { days: -36_500, limit: 1, canSeeRestricted, contactIds: [contactId] });
  const priority = await currentPriorityOf(db, orgId, contactId);
  const carers = await listCareAssignments(db, orgId, { contactId, limit: 100 });
  const counts = await queryOne<{ follow_ups: number; outreach: number }>(db, `SELECT
      (SELECT count(*)::int FROM notes n WHERE n.org_id = $1 AND n.contact_id = $2 AND n.follow_up_date IS NOT NULL AND NOT n.follow_up_completed
        AND ${visibleNoteSql('n', canSeeRestricted)}) AS follow_ups,
      (SELECT count(*)::int FROM outreach_items o WHERE o.org_id = $1 AND o.contact_id = $2 AND o.status IN ('pending_review', 'approved')) AS outreach`,
  [orgId, contactId]);
  const daysSinceContact = Math.max(0, contactHistory?.daysSinceContact ?? 0);
  return {
    contactId, contactName: displayNameOf(contact), priority: priority.priority, priorityReason: priority.reason, prioritySetAt: priority.setAt,
    carers: carers.map((carer) => ({ assignmentId: carer.assignmentId, roleName: carer.roleName, userId: carer.userId, memberEmail: carer.memberEmail, memberName: carer.memberName })),
    onCrisisHold: (await heldContactIds(db, orgId, [contactId])).has(contactId),
    lastPastoralContactAt: contactHistory?.lastPastoralContactAt ?? null, daysSinceContact, welfareDue: daysSinceContact >= settings.welfareIntervalDays,
    welfareIntervalDays: settings.welfareIntervalDays, openNoteFollowUps: counts!.follow_ups, pendingOutreach: counts!.outreach,
  };
}

export async function careTeamOverview(db: Queryable, orgId: string) {
  const roles = await listCareRoles(db, orgId);
  const assignments = await listCareAssignments(db, orgId, { limit: 10_000 });
  const members = new Map<string, { userId: string; memberEmail: string; memberName: string | null; roles: Set<string>; congregationWide: boolean; contacts: number }>();
  for (const assignment of assignments) {
    const member = members.get(assignment.userId) ?? { userId: assignment.userId, memberEmail: assignment.memberEmail, memberName: assignment.memberName, roles: new Set<string>(), congregationWide: false, contacts: 0 };
    member.roles.add(assignment.roleName);
    if (assignment.contactId) member.contacts += 1;
    else member.congregationWide = true;
    members.set(assignment.userId, member);
  }
  const cared = new Set(assignments.map((assignment: CareAssignment) => assignment.contactId).filter((id): id is string => id !== null));
  const raised = await contactsWithPriority(db, orgId, ['high', 'urgent']);
  return {
    roles,
    members: [...members.values()].map((member) => ({ ...member, roles: [...member.roles].sort() })),
    contactsWithCarer: cared.size,
    highPriorityWithoutCarer: raised.filter((contact) => !cared.has(contact.contactId)).map((contact) => ({ contactId: contact.contactId, contactName: contact.name, priority: contact.priority })),
    // From the assignments listed (current team members only), as the approval rule counts them.
    approversNamed: assignments.some((assignment) => roles.some((role) => role.roleId === assignment.roleId && role.canApproveOutreach)),
  };
}

type Reason = { signal: CareSignal; detail: string };

/**
 * Who may need care soon, from signals anyone can check: no pastoral contact for the welfare
 * interval, a recent support life event, a grief touchpoint coming due, a raised care priority, a
 * crisis hold. Each person is listed with every reason that applies; nothing is weighed or scored.
 */
export async function carePredictions(db: Queryable, orgId: string, canSeeRestricted: boolean, limit: number) {
  const reasons = new Map<string, { name: string; reasons: Reason[] }>();
  const add = (contactId: string, name: string, reason: Reason) => {
    const entry = reasons.get(contactId) ?? { name, reasons: [] };
    entry.reasons.push(reason);
    reasons.set(contactId, entry);
  };
  const signalsUnavailable: string[] = [];

  const { welfareIntervalDays } = await getPastoralSettings(db, orgId);
  for (const person of await listWelfareDueContacts(db, orgId, { days: welfareIntervalDays, limit: 500, canSeeRestricted })) {
    add(person.contactId, person.name, {
      signal: 'no_recent_contact',
      detail: person.lastPastoralContactAt ? `${person.daysSinceContact} days since last pastoral contact (welfare interval ${welfareIntervalDays})` : `No pastoral contact recorded in the ${person.daysSinceContact} days since they were added`,
    });
  }

  if (await tableExists(db, 'pastoral_life_events')) {
    const events = await queryRows<NamedRow & { contact_id: string; event_type: string; event_date: string }>(db, `
      SELECT e.contact_id, e.event_type, e.event_date::text, c.first_name, c.last_name, c.preferred_name, c.email
      FROM pastoral_life_events e JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL
      WHERE e.org_id = $1 AND e.intent = 'support' AND e.status <> 'resolved' AND ${visibleRecordSql('e', canSeeRestricted)}
        AND (e.event_date >= CURRENT_DATE - $2::int OR e.created_at >= now() - make_interval(days => $2::int))
      ORDER BY e.event_date DESC LIMIT 500`, [orgId, RECENT_LIFE_EVENT_DAYS]);
    for (const event of events) {
      add(event.contact_id, displayNameOf(event), { signal: 'support_life_event', detail: `${event.event_type.replace(/_/g, ' ')} on ${event.event_date}, not yet resolved` });
    }
  } else signalsUnavailable.push('support_life_event');

  if (await tableExists(db, 'pastoral_grief_touchpoints')) {
    const touchpoints = await queryRows<NamedRow & { contact_id: string; label: string; due_on: string }>(db, `
      SELECT e.contact_id, t.label, t.due_on::text, c.first_name, c.last_name, c.preferred_name, c.email
      FROM pastoral_grief_touchpoints t JOIN pastoral_life_events e ON e.id = t.life_event_id AND e.org_id = t.org_id
      JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL
      WHERE t.org_id = $1 AND t.status IN ('pending', 'due') AND t.due_on <= CURRENT_DATE + $2::int AND ${visibleRecordSql('e', canSeeRestricted)}
      ORDER BY t.due_on LIMIT 500`, [orgId, TOUCHPOINT_HORIZON_DAYS]);
    for (const touchpoint of touchpoints) {
      add(touchpoint.contact_id, displayNameOf(touchpoint), { signal: 'grief_touchpoint_due', detail: `Grief touchpoint "${touchpoint.label}" due ${touchpoint.due_on}` });
    }
  } else signalsUnavailable.push('grief_touchpoint_due');

  for (const contact of await contactsWithPriority(db, orgId, ['high', 'urgent'])) {
    add(contact.contactId, contact.name, { signal: 'care_priority', detail: `Care priority is ${contact.priority}` });
  }

  const holds = await queryRows<NamedRow & { contact_id: string }>(db, `SELECT DISTINCT h.contact_id, c.first_name, c.last_name, c.preferred_name, c.email
    FROM crisis_holds h JOIN contacts c ON c.id = h.contact_id AND c.org_id = h.org_id AND c.deleted_at IS NULL WHERE h.org_id = $1 AND h.cleared_at IS NULL`, [orgId]);
  for (const hold of holds) add(hold.contact_id, displayNameOf(hold), { signal: 'crisis_hold', detail: 'On a crisis hold: a person should be in touch' });

  // Signals other modules observe (attendance: a regular who stopped coming, explained there with the weeks it counted).
  for (const source of careSignalSources()) {
    for (const hit of await source.contacts(db, orgId)) add(hit.contactId, hit.contactName, { signal: source.signal, detail: hit.detail });
  }

  const predictions = [...reasons.entries()]
    .map(([contactId, entry]) => ({ contactId, contactName: entry.name, reasons: entry.reasons }))
    .sort((a, b) => b.reasons.length - a.reasons.length || a.contactName.localeCompare(b.contactName) || a.contactId.localeCompare(b.contactId));
  return { predictions: predictions.slice(0, limit), total: predictions.length, signalsUsed: CARE_SIGNALS.filter((signal) => !signalsUnavailable.includes(signal)), signalsUnavailable };
}

type NamedRow = Pick<RowOf<Contact>, 'first_name' | 'last_name' | 'preferred_name' | 'email'>;
