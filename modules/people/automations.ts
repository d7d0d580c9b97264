import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AUTOMATION_TYPES, OUTREACH_CHANNELS, type AutomationType, type OutreachChannel } from '../../core/approvals';
import { StewardError } from '../../core/errors';
import { fn } from 'sequelize';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { withModels } from '../../db/sequelize';
import type { OrgSettings } from '../tool';
import { RESTRICTED_NOTE_REMOVAL, visibleNoteSql } from './notes';
import {
  createOutreachItem, getOutreachItem, loadDeliveryContact, renderTemplate, validateContent, type OutreachItem,
} from './outreach';
import { outreachRefusal } from './outreach-recipient';
import { displayNameOf } from './contacts';
import { PastoralAutomation } from './models';
import { getPastoralSettings } from './pastoral/care/settings';
import { crisisHoldRefusal, heldContactIds } from './pastoral/care/crisis';

/**
 * Pastoral automations (welfare_check, encouragement, grief_support): each has
 * its own schedule and, when it runs, queues outreach items for review. They
 * never send anything themselves.
 */

export const automationSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  type: z.enum(AUTOMATION_TYPES),
  channel: z.enum(OUTREACH_CHANNELS),
  subjectTemplate: z.string().nullable(),
  bodyTemplate: z.string(),
  enabled: z.boolean(),
  intervalHours: z.number().int(),
  daysWithoutContact: z.number().int(),
  targetTag: z.string().nullable(),
  maxItemsPerRun: z.number().int(),
  lastRunAt: z.string().nullable(),
  lastRunStatus: z.string().nullable(),
  lastRunGenerated: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).strict();
export type Automation = z.infer<typeof automationSchema>;

function automationView(automation: PastoralAutomation): Automation {
  // Type and channel hold only their enums (CHECK constraints), which the model types as text.
  return {
    id: automation.id, name: automation.name, type: automation.automationType as AutomationType, channel: automation.channel as OutreachChannel,
    subjectTemplate: automation.subjectTemplate, bodyTemplate: automation.bodyTemplate, enabled: automation.enabled,
    intervalHours: automation.intervalHours, daysWithoutContact: automation.daysWithoutContact, targetTag: automation.targetTag,
    maxItemsPerRun: automation.maxItemsPerRun, lastRunAt: automation.lastRunAt?.toISOString() ?? null,
    lastRunStatus: automation.lastRunStatus, lastRunGenerated: automation.lastRunGenerated,
    createdAt: automation.createdAt.toISOString(), updatedAt: automation.updatedAt.toISOString(),
  };
}

/** Starting templates per type; `{{firstName}}`, `{{name}}` and `{{organisation}}` are filled per person. */
export const DEFAULT_TEMPLATES: Record<AutomationType, { subject: string; body: string; targetTag: string | null }> = {
  welfare_check: {
    subject: 'Thinking of you, {{firstName}}',
    body: 'Hi {{firstName}}, it has been a while and we wanted to check in. How are you doing? If there is anything we can do or pray about, just reply. With love from everyone at {{organisation}}.',
    targetTag: null,
  },
  encouragement: {
    subject: 'A note of encouragement',
    body: 'Hi {{firstName}}, just a quick note to say we are thankful for you. Have a blessed week. From {{organisation}}.',
    targetTag: null,
  },
  grief_support: {
    subject: 'We are holding you in our prayers',
    body: 'Dear {{firstName}}, we are thinking of you at this difficult time. We would love to visit or call whenever you would like. With love, {{organisation}}.',
    targetTag: 'bereaved',
  },
};

export interface AutomationFields {
  name?: string;
  type?: AutomationType;
  channel?: OutreachChannel;
  subjectTemplate?: string | null;
  bodyTemplate?: string;
  enabled?: boolean;
  intervalHours?: number;
  daysWithoutContact?: number;
  targetTag?: string | null;
  maxItemsPerRun?: number;
}

export async function getAutomation(db: Queryable, orgId: string, id: string): Promise<Automation | undefined> {
  // PastoralAutomation is paranoid: a removed automation is not found.
  const automation = await withModels(db, (transaction) => PastoralAutomation.findOne({ where: { orgId, id }, transaction }));
  return automation ? automationView(automation) : undefined;
}

export async function requireAutomation(db: Queryable, orgId: string, id: string): Promise<Automation> {
  const automation = await getAutomation(db, orgId, id);
  if (!automation) throw new StewardError('not_found', `Pastoral automation ${id} was not found`, { hint: 'people_list_pastoral_automations lists them.' });
  return automation;
}

export async function listAutomations(db: Queryable, orgId: string): Promise<Automation[]> {
  const automations = await withModels(db, (transaction) => PastoralAutomation.findAll({
    where: { orgId }, order: [['createdAt', 'ASC'], ['id', 'ASC']], transaction,
  }));
  return automations.map(automationView);
}

export async function createAutomation(
  db: Queryable, orgId: string, userId: string | null, input: AutomationFields & { name: string; type: AutomationType },
): Promise<Automation> {
  const defaults = DEFAULT_TEMPLATES[input.type];
  const channel = input.channel ?? 'email';
  const subject = input.subjectTemplate !== undefined ? input.subjectTemplate : channel === 'email' ? defaults.subject : null;
  const body = input.bodyTemplate ?? defaults.body;
  validateContent(channel, subject, body);
  const id = randomUUID();
  // Without a number of days, an automation follows the organisation's welfare interval at the time it is made.
  const daysWithoutContact = input.daysWithoutContact ?? (await getPastoralSettings(db, orgId)).welfareIntervalDays;
  await withModels(db, (transaction) => PastoralAutomation.create({
    id, orgId, name: input.name, automationType: input.type, channel, subjectTemplate: subject, bodyTemplate: body,
    enabled: input.enabled ?? true, intervalHours: input.intervalHours ?? 24, daysWithoutContact,
    targetTag: input.targetTag !== undefined ? input.targetTag : defaults.targetTag, maxItemsPerRun: input.maxItemsPerRun ?? 25,
    createdByUserId: userId,
  }, { transaction }));
  return (await getAutomation(db, orgId, id))!;
}

export async function updateAutomation(db: Queryable, orgId: string, id: string, changes: AutomationFields): Promise<{ automation: Automation; changedFields: string[] }> {
  const current = await requireAutomation(db, orgId, id);
  const next = {
    channel: changes.channel ?? current.channel,
    subject: changes.subjectTemplate !== undefined ? changes.subjectTemplate : current.subjectTemplate,
    body: changes.bodyTemplate ?? current.bodyTemplate,
  };
  validateContent(next.channel, next.subject, next.body);
  // Every field is the model attribute of the same name, except `type` (automationType). Only fields given change.
  const values: Record<string, unknown> = {};
  const changedFields: string[] = [];
  for (const [field, value] of Object.entries(changes) as Array<[keyof AutomationFields, unknown]>) {
    if (value === undefined) continue;
    values[field === 'type' ? 'automationType' : field] = value;
    changedFields.push(field);
  }
  if (changedFields.length > 0) {
    // updated_at is the model's DEFAULT, the database's now(); the row was found live just above.
    await withModels(db, (transaction) => PastoralAutomation.update(values, { where: { orgId, id }, paranoid: false, transaction }));
  }
  return { automation: (await getAutomation(db, orgId, id))!, changedFields };
}

export async function removeAutomation(db: Queryable, orgId: string, id: string): Promise<void> {
  await requireAutomation(db, orgId, id);
  // Not destroy(): it would stamp deleted_at from this process's clock and leave enabled and updated_at as they were.
  await withModels(db, (transaction) => PastoralAutomation.update({ deletedAt: fn('now'), enabled: false }, {
    where: { orgId, id }, paranoid: false, transaction,
  }));
}

export async function duplicateAutomation(db: Queryable, orgId: string, id: string, userId: string | null, name?: string): Promise<Automation> {
  const source = await requireAutomation(db, orgId, id);
  return createAutomation(db, orgId, userId, {
    name: name ?? `${source.name} (copy)`, type: source.type, channel: source.channel, subjectTemplate: source.subjectTemplate,
    bodyTemplate: source.bodyTemplate, enabled: false, intervalHours: source.intervalHours, daysWithoutContact: source.daysWithoutContact,
    targetTag: source.targetTag, maxItemsPerRun: source.maxItemsPerRun,
  });
}

export async function recordAutomationRun(db: Queryable, orgId: string, id: string, status: string, generated: number): Promise<void> {
  // A run is not an edit: updated_at stays (silent); a run that finishes after its automation was removed is still recorded.
  await withModels(db, (transaction) => PastoralAutomation.update({ lastRunAt: fn('now'), lastRunStatus: status, lastRunGenerated: generated }, {
    where: { orgId, id }, silent: true, paranoid: false, transaction,
  }));
}

/**
 * Timeline kinds that count as pastoral contact (notes, visits, outreach, prayer, grief care, a life
 * event celebrated), for the timeline entries aliased `t`. Life-event bookkeeping (recording, editing,
 * a status change, removal) is not: writing down that something happened is not being in touch about
 * it. The one definition: welfare-due and the life-events radar both use it.
 */
export const PASTORAL_TIMELINE_SQL = `(t.kind LIKE 'note%' OR t.kind LIKE 'outreach%' OR t.kind LIKE '%visit%' OR t.kind LIKE 'pastoral%'
  OR t.kind LIKE 'prayer%' OR t.kind LIKE 'grief%' OR t.kind = 'life_event_celebrated')`;

export interface WelfareDueContact {
  contactId: string;
  name: string;
  email: string | null;
  phone: string | null;
  lastPastoralContactAt: string | null;
  daysSinceContact: number;
}

/**
 * Live contacts with no pastoral contact (a note or a pastoral timeline entry)
 * for at least `days` days; someone never contacted counts from when they were added.
 *
 * `canSeeRestricted` has no default: every caller states whose view it computes. Without it, both who
 * is due and the date reported come from visible contact only. Were membership to count a restricted
 * note, varying `days` would find that note's age to the day, so being on the list or not would tell
 * what the date itself may not.
 */
export async function listWelfareDueContacts(
  db: Queryable, orgId: string, options: { days: number; limit: number; tag?: string | null; canSeeRestricted: boolean; contactIds?: readonly string[] },
): Promise<WelfareDueContact[]> {
  const canSee = options.canSeeRestricted;
  const visible = visibleNoteSql('vn', canSee);
  const rows = await queryRows<{
    id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; phone: string | null;
    last_contact: Date | null; last_visible: Date | null; created_at: Date;
  }>(db, `
    WITH last AS (
      SELECT c.id, c.first_name, c.last_name, c.preferred_name, c.email, c.phone, c.created_at,
        GREATEST(
          (SELECT max(n.created_at) FROM notes n WHERE n.org_id = c.org_id AND n.contact_id = c.id),
          (SELECT max(t.occurred_at) FROM timeline_entries t WHERE t.org_id = c.org_id AND t.contact_id = c.id AND ${PASTORAL_TIMELINE_SQL})
        ) AS last_contact,
        GREATEST(
          (SELECT max(vn.created_at) FROM notes vn WHERE vn.org_id = c.org_id AND vn.contact_id = c.id AND ${visible}),
          (SELECT max(t.occurred_at) FROM timeline_entries t LEFT JOIN notes vn ON t.source_kind = 'note' AND vn.id = t.source_id AND vn.org_id = t.org_id
            WHERE t.org_id = c.org_id AND t.contact_id = c.id AND ${PASTORAL_TIMELINE_SQL} AND (${canSee} OR NOT t.restricted)
              AND (t.source_kind NOT LIKE 'note%' OR t.source_kind = 'note_removal'
                OR (t.source_kind = 'note' AND vn.id IS NOT NULL AND ${visible})
                OR (t.source_kind = '${RESTRICTED_NOTE_REMOVAL}' AND ${canSee})))
        ) AS last_visible
      FROM contacts c
      WHERE c.org_id = $1 AND c.deleted_at IS NULL
        AND ($4::text IS NULL OR EXISTS (SELECT 1 FROM contact_tags ct JOIN tags tg ON tg.id = ct.tag_id AND tg.org_id = ct.org_id
                                          WHERE ct.org_id = c.org_id AND ct.contact_id = c.id AND lower(tg.name) = lower($4)))
        AND ($6::uuid[] IS NULL OR c.id = ANY($6::uuid[]))
    )
    SELECT * FROM last
    WHERE COALESCE(CASE WHEN $5::boolean THEN last_contact ELSE last_visible END, created_at) <= now() - make_interval(days => $2)
    ORDER BY COALESCE(CASE WHEN $5::boolean THEN last_contact ELSE last_visible END, created_at), id
    LIMIT $3`, [orgId, options.days, options.limit, options.tag ?? null, canSee, options.contactIds ?? null]);
  const now = Date.now();
  return rows.map((row) => ({
    contactId: row.id, name: displayNameOf(row), email: row.email, phone: row.phone,
    lastPastoralContactAt: row.last_visible?.toISOString() ?? null,
    daysSinceContact: Math.floor((now - (row.last_visible ?? row.created_at).getTime()) / 86_400_000),
  }));
}

/**
 * An automation's queue and each item's reason are read by anyone with people:read, so it works from what
 * they may see: a contact whose only recent contact is a restricted note is due here, and a person decides on the item.
 */
const AUTOMATION_SEES_RESTRICTED = false;

/** Contacts an automation is for: welfare checks by days without contact, the others by tag (or days when no tag is set). */
async function targetsOf(db: Queryable, orgId: string, automation: Automation, limit: number): Promise<WelfareDueContact[]> {
  if (automation.type === 'welfare_check' || !automation.targetTag) {
    return listWelfareDueContacts(db, orgId, {
      days: automation.daysWithoutContact, limit, tag: automation.type === 'welfare_check' ? automation.targetTag : null, canSeeRestricted: AUTOMATION_SEES_RESTRICTED,
    });
  }
  return listWelfareDueContacts(db, orgId, { days: 0, limit, tag: automation.targetTag, canSeeRestricted: AUTOMATION_SEES_RESTRICTED });
}

export function reasonFor(type: AutomationType, contact: WelfareDueContact): string {
  if (type === 'welfare_check') return `${contact.daysSinceContact} days since last pastoral contact`;
  if (type === 'grief_support') return 'Grief support for a bereaved member';
  return 'Encouragement';
}

/**
 * Queues one outreach item per target contact that can receive the channel and
 * has no open item for the same reason. Idempotent per run: a retried run
 * returns the items it already queued.
 */
export async function generateOutreachForAutomation(
  db: Queryable, org: OrgSettings, automation: Automation, run: { sourceRun: string; createdByUserId: string | null },
): Promise<{ items: OutreachItem[]; skipped: Array<{ contactId: string; reason: string }> }> {
  const already = await queryRows<{ id: string }>(db, 'SELECT id FROM outreach_items WHERE org_id = $1 AND source_run = $2 ORDER BY created_at, id', [org.id, run.sourceRun]);
  if (already.length > 0) {
    const items = await Promise.all(already.map((row) => getOutreachItem(db, org.id, row.id)));
    return { items: items.filter((i): i is OutreachItem => Boolean(i)), skipped: [] };
  }
  const targets = await targetsOf(db, org.id, automation, automation.maxItemsPerRun * 4);
  const items: OutreachItem[] = [];
  const skipped: Array<{ contactId: string; reason: string }> = [];
  const held = await heldContactIds(db, org.id, targets.map((target) => target.contactId));
  for (const target of targets) {
    if (items.length >= automation.maxItemsPerRun) break;
    // A crisis hold wins over every automation: nothing is queued, and the person stays for a human to reach.
    if (held.has(target.contactId)) {
      skipped.push({ contactId: target.contactId, reason: crisisHoldRefusal().message });
      continue;
    }
    const refusal = await outreachRefusal(db, org.id, target.contactId, automation.channel);
    if (refusal) {
      skipped.push({ contactId: target.contactId, reason: refusal.message });
      continue;
    }
    const dedupeKey = `${automation.type}:${target.contactId}`;
    // One open message per person at a time, whoever queued it (another automation, an agent, a person).
    const open = await queryOne(db, `SELECT 1 FROM outreach_items WHERE org_id = $1 AND status IN ('pending_review', 'approved')
      AND (dedupe_key = $2 OR contact_id = $3)`, [org.id, dedupeKey, target.contactId]);
    if (open) {
      skipped.push({ contactId: target.contactId, reason: 'A message to this person is already waiting for review or sending' });
      continue;
    }
    const contact = await loadDeliveryContact(db, org.id, target.contactId);
    const values = { firstName: contact!.preferred_name ?? contact!.first_name ?? target.name, name: target.name, organisation: org.name };
    items.push(await createOutreachItem(db, org.id, {
      id: randomUUID(), contactId: target.contactId, channel: automation.channel,
      subject: automation.subjectTemplate ? renderTemplate(automation.subjectTemplate, values) : null,
      body: renderTemplate(automation.bodyTemplate, values), source: 'automation', automationId: automation.id,
      reason: reasonFor(automation.type, target), dedupeKey, sourceRun: run.sourceRun, createdByUserId: run.createdByUserId,
    }));
  }
  return { items, skipped };
}
