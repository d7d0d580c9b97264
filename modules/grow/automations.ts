import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, withTenantTransaction, type Pool, type Queryable } from '../../db/pool';
import { recordJobChange } from '../audit/api';
import { assertAllowance, lockFeature } from '../../kernel/billing';
import { checkRecipient, queueMessage } from '../channels/api';
import { donationsRecordedSince } from '../giving/api';
import { membersMissingMeetings } from '../groups/api';
import { notFound } from '../kit';
import {
  addContactTags, addGroupMember, assertValidRules, birthdaysOn, contactMatchesRules, contactNames, contactsCreatedSince, firstVisitsSince, isOnCrisisHold,
  lifeEventsRecordedSince, openFollowUpTask, HAPPENINGS_LIMIT, requireContact, requireGroup, ruleSetSchema, type ContactHappening, type RuleSet,
} from '../people/api';
import { localDateAt, organisationTimeZone } from '../schedule/api';

/**
 * Automations: a trigger (something other modules already record, read by a sweep through their
 * api.ts, or a birthday), conditions over the subject (people's segment rules) and steps. Each
 * subject's run is its own workflow (workflows/automation.ts) whose state lives in its row here: the
 * step it is at and when its next action is due, so a restart goes on where it was. The run keeps
 * the version it started with; pausing the automation holds its runs before their next step; a
 * crisis hold or consent withdrawn (channels' checkRecipient) stops a run at its next step, with
 * the reason recorded. Messages go only through channels' outbox.
 */

export const AUTOMATION_STATUSES = ['draft', 'active', 'paused'] as const;
export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];
export const RUN_STATUSES = ['active', 'completed', 'stopped', 'cancelled', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const ACTIVATE_TOOL = 'grow_activate_automation';
export const TRIGGER_EVENTS = ['contact_created', 'first_time_guest', 'form_submitted', 'donation_recorded', 'life_event', 'missed_group_meetings', 'birthday'] as const;
/** Events recorded a little before the sweep's cursor are read again: a transaction that began earlier may commit later. */
const SWEEP_OVERLAP_MS = 10 * 60_000;
const TIMESTAMPED: ReadonlySet<string> = new Set(['contact_created', 'form_submitted', 'donation_recorded', 'life_event']);

export const triggerSchema = z.discriminatedUnion('event', [
  z.object({ event: z.literal('contact_created') }).describe('A contact is added to the CRM'),
  z.object({ event: z.literal('first_time_guest') }).describe('A contact becomes a first-time visitor'),
  z.object({ event: z.literal('form_submitted'), formId: z.uuid().optional().describe('Only this form (grow_list_forms); any form when absent') }).describe('A form submission matched or created a contact'),
  z.object({ event: z.literal('donation_recorded') }).describe('A gift from a known giver is recorded'),
  z.object({ event: z.literal('life_event'), eventTypes: z.array(z.string().trim().min(1).max(40)).max(20).optional().describe('Only these life event types (birth, marriage, bereavement…); any when absent') })
    .describe('A life event is recorded (private and amber/red ones never trigger)'),
  z.object({ event: z.literal('missed_group_meetings') }).describe('A small group member misses three meetings in a row'),
  z.object({ event: z.literal('birthday') }).describe('On a contact\'s birthday in the organisation\'s time zone (the zone its services are scheduled in; read each day)'),
]);
export type Trigger = z.output<typeof triggerSchema>;

const text = (max: number) => z.string().trim().min(1).max(max);
export const stepSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('wait'), days: z.number().int().min(0).max(365).default(0), hours: z.number().int().min(0).max(23).default(0),
    minutes: z.number().int().min(0).max(59).default(0), seconds: z.number().int().min(0).max(59).default(0),
  }).describe('Wait before the next step (days, hours, minutes, seconds; at least one second in all)'),
  z.object({ type: z.literal('send_email'), subject: text(300), body: text(20_000), purpose: z.enum(['marketing', 'charitable_purpose', 'service']).default('marketing') })
    .describe('Email the person through the channels outbox (consent for the purpose checked)'),
  z.object({ type: z.literal('send_sms'), body: text(1_600), purpose: z.enum(['marketing', 'charitable_purpose', 'service']).default('marketing') })
    .describe('Text the person through the channels outbox (consent for the purpose checked)'),
  z.object({ type: z.literal('add_tag'), tag: text(100).describe('Tag name; created when missing') }),
  z.object({ type: z.literal('create_task'), title: text(200), dueInDays: z.number().int().min(0).max(365).default(3) }).describe('A follow-up task for the person (people_list_follow_up_tasks)'),
  z.object({ type: z.literal('add_to_group'), groupId: z.uuid().describe('A CRM group (people_list_crm_groups)') }),
  z.object({ type: z.literal('notify_staff'), staffContactId: z.uuid().describe('The staff member\'s own contact record, emailed a service message'), message: text(2_000) })
    .describe('Tell a staff member by email that the person reached this step'),
]);
export type Step = z.output<typeof stepSchema>;
export const stepsSchema = z.array(stepSchema).min(1).max(30);
export const conditionsSchema = ruleSetSchema;

export interface AutomationDefinition { trigger: Trigger; conditions: RuleSet | null; steps: Step[] }

interface AutomationRow {
  id: string; org_id: string; name: string; status: AutomationStatus; version: number; allow_reentry: boolean; messages_people: boolean;
  activated_at: Date | null; trigger_cursor: Date | null; created_at: Date; updated_at: Date;
}
interface VersionRow { version: number; trigger: Trigger; conditions: RuleSet | null; steps: Step[] }
interface RunRow {
  id: string; automation_id: string; version: number; contact_id: string; entry: number; event_key: string; status: RunStatus; step: number; next_at: Date | null;
  pending_message_id: string | null; stop_reason: string | null; failures: number; attempts: number; last_error: string | null; workflow_started: boolean;
  started_at: Date; finished_at: Date | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const isMessage = (step: Step): step is Extract<Step, { type: 'send_email' | 'send_sms' }> => step.type === 'send_email' || step.type === 'send_sms';
const waitMs = (step: Extract<Step, { type: 'wait' }>) => ((step.days * 24 + step.hours) * 60 + step.minutes) * 60_000 + step.seconds * 1000;

/** Workflow ids: one per subject's entry, so a subject runs once unless the automation allows re-entry. */
export const automationRunWorkflowId = (orgId: string, automationId: string, contactId: string, entry: number) =>
  `grow-automation-${orgId}-${automationId}-${contactId}${entry > 1 ? `-${entry}` : ''}`;
export const automationWatchWorkflowId = (orgId: string, automationId: string) => `grow-automation-watch-${orgId}-${automationId}`;

/** A step in words, as the runs list shows what comes next. */
export function describeStep(step: Step): string {
  switch (step.type) {
    case 'wait': {
      const parts = [[step.days, 'day'], [step.hours, 'hour'], [step.minutes, 'minute'], [step.seconds, 'second']] as const;
      return `Wait ${parts.filter(([n]) => n > 0).map(([n, unit]) => `${n} ${unit}${n === 1 ? '' : 's'}`).join(' ')}`;
    }
    case 'send_email': return `Email "${step.subject}"`;
    case 'send_sms': return 'Text message';
    case 'add_tag': return `Add the tag "${step.tag}"`;
    case 'create_task': return `Create the task "${step.title}"`;
    case 'add_to_group': return 'Add to a CRM group';
    case 'notify_staff': return 'Notify a staff member';
  }
}

// ---------------------------------------------------------------- automations

export interface AutomationView {
  id: string; name: string; status: AutomationStatus; version: number; trigger: Trigger; conditions: RuleSet | null; steps: Step[]; allowReentry: boolean;
  messagesPeople: boolean; activatedAt: string | null; runs: { active: number; completed: number; stopped: number; cancelled: number; failed: number };
  createdAt: string; updatedAt: string;
}

async function versionOf(db: Queryable, orgId: string, automationId: string, version: number): Promise<VersionRow> {
  const row = await queryOne<VersionRow>(db, 'SELECT version, trigger, conditions, steps FROM grow_automation_versions WHERE org_id = $1 AND automation_id = $2 AND version = $3', [orgId, automationId, version]);
  if (!row) throw new StewardError('internal_error', `Automation ${automationId} has no version ${version}`);
  return row;
}

async function requireAutomation(db: Queryable, orgId: string, id: string, lock = false): Promise<AutomationRow> {
  const row = await queryOne<AutomationRow>(db, `SELECT * FROM grow_automations WHERE org_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [orgId, id]);
  if (!row) throw notFound('Automation', id, 'grow_list_automations lists the automations.');
  return row;
}

async function view(db: Queryable, orgId: string, row: AutomationRow): Promise<AutomationView> {
  const version = await versionOf(db, orgId, row.id, row.version);
  const counts = await queryRows<{ status: RunStatus; n: number }>(db, 'SELECT status, count(*)::int AS n FROM grow_automation_runs WHERE org_id = $1 AND automation_id = $2 GROUP BY status', [orgId, row.id]);
  const runs = { active: 0, completed: 0, stopped: 0, cancelled: 0, failed: 0 };
  for (const c of counts) runs[c.status] = c.n;
  return {
    id: row.id, name: row.name, status: row.status, version: row.version, trigger: version.trigger, conditions: version.conditions, steps: version.steps,
    allowReentry: row.allow_reentry, messagesPeople: row.messages_people, activatedAt: iso(row.activated_at), runs,
    createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

export async function automationView(db: Queryable, orgId: string, id: string): Promise<AutomationView> {
  return view(db, orgId, await requireAutomation(db, orgId, id));
}

export async function listAutomations(db: Queryable, orgId: string, status: AutomationStatus | undefined, limit: number): Promise<AutomationView[]> {
  const rows = await queryRows<AutomationRow>(db, 'SELECT * FROM grow_automations WHERE org_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC, id DESC LIMIT $3', [orgId, status ?? null, limit]);
  const out: AutomationView[] = [];
  for (const row of rows) out.push(await view(db, orgId, row));
  return out;
}

/** What a definition names must exist in the organisation now (a foreign id reads as missing), and its rules must compile. */
async function checkDefinition(db: Queryable, orgId: string, definition: AutomationDefinition): Promise<void> {
  if (definition.conditions) assertValidRules(definition.conditions);
  if (definition.trigger.event === 'form_submitted' && definition.trigger.formId) {
    const form = await queryOne(db, 'SELECT 1 FROM grow_forms WHERE org_id = $1 AND id = $2', [orgId, definition.trigger.formId]);
    if (!form) throw notFound('Form', definition.trigger.formId, 'grow_list_forms lists the forms.');
  }
  for (const [index, step] of definition.steps.entries()) {
    if (step.type === 'wait' && waitMs(step) < 1000) {
      throw new StewardError('validation_failed', `Step ${index + 1} waits no time at all`, { issues: [{ path: `steps.${index}`, message: 'a wait needs at least one second' }] });
    }
    if (step.type === 'add_to_group') await requireGroup(db, orgId, { groupId: step.groupId });
    if (step.type === 'notify_staff') await requireContact(db, orgId, step.staffContactId);
  }
}

async function saveVersion(db: Queryable, orgId: string, automationId: string, version: number, definition: AutomationDefinition): Promise<void> {
  await db.query('INSERT INTO grow_automation_versions (org_id, automation_id, version, trigger, conditions, steps) VALUES ($1, $2, $3, $4, $5, $6)',
    [orgId, automationId, version, JSON.stringify(definition.trigger), definition.conditions ? JSON.stringify(definition.conditions) : null, JSON.stringify(definition.steps)]);
}

export async function createAutomation(db: Queryable, orgId: string, input: AutomationDefinition & { name: string; allowReentry: boolean }): Promise<AutomationView> {
  await checkDefinition(db, orgId, input);
  const id = randomUUID();
  await db.query('INSERT INTO grow_automations (id, org_id, name, allow_reentry, messages_people) VALUES ($1, $2, $3, $4, $5)',
    [id, orgId, input.name, input.allowReentry, input.steps.some(isMessage)]);
  await saveVersion(db, orgId, id, 1, input);
  return automationView(db, orgId, id);
}

/**
 * An edit makes a new version: runs already going keep the version they started with, new runs take
 * this one. An active automation that starts messaging people goes back to draft: that needs its
 * activation's approval again.
 */
export async function updateAutomation(
  db: Queryable, orgId: string, id: string, input: Partial<AutomationDefinition> & { name?: string; allowReentry?: boolean },
): Promise<{ automation: AutomationView; newVersion: boolean; backToDraft: boolean }> {
  const row = await requireAutomation(db, orgId, id, true);
  const current = await versionOf(db, orgId, id, row.version);
  const definition: AutomationDefinition = {
    trigger: input.trigger ?? current.trigger, conditions: input.conditions !== undefined ? input.conditions : current.conditions, steps: input.steps ?? current.steps,
  };
  const changed = input.trigger !== undefined || input.conditions !== undefined || input.steps !== undefined;
  const messagesPeople = definition.steps.some(isMessage);
  const backToDraft = changed && row.status !== 'draft' && messagesPeople && !row.messages_people;
  if (changed) {
    await checkDefinition(db, orgId, definition);
    await saveVersion(db, orgId, id, row.version + 1, definition);
  }
  await db.query(`UPDATE grow_automations SET name = $3, allow_reentry = $4, messages_people = $5, version = $6, status = $7, updated_at = now() WHERE org_id = $1 AND id = $2`, [
    orgId, id, input.name ?? row.name, input.allowReentry ?? row.allow_reentry, messagesPeople, changed ? row.version + 1 : row.version, backToDraft ? 'draft' : row.status,
  ]);
  return { automation: await automationView(db, orgId, id), newVersion: changed, backToDraft };
}

/** Whether activating waits for a person: an automation that emails or texts people does. A draft or paused one is checked first, so a refusal comes at once. */
export async function activationNeedsApproval(db: Queryable, orgId: string, id: string): Promise<boolean> {
  const row = await queryOne<AutomationRow>(db, 'SELECT * FROM grow_automations WHERE org_id = $1 AND id = $2', [orgId, id]);
  if (!row || row.status === 'active') return false;
  return row.messages_people;
}

/** Activates a draft or resumes a paused automation, within the plan's allowance of active automations (counted under a lock, so two at once cannot both take the last place). */
export async function activateAutomation(db: Queryable, orgId: string, id: string): Promise<{ automation: AutomationView; changed: boolean }> {
  await lockFeature(db, orgId, 'active_automations');
  const row = await requireAutomation(db, orgId, id, true);
  if (row.status === 'active') return { automation: await view(db, orgId, row), changed: false };
  await assertAllowance(db, orgId, 'active_automations', 1, { tool: ACTIVATE_TOOL });
  await db.query(`UPDATE grow_automations SET status = 'active', activated_at = COALESCE(activated_at, now()), trigger_cursor = COALESCE(trigger_cursor, now()), updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, id]);
  return { automation: await automationView(db, orgId, id), changed: true };
}

/** Pausing holds every run before its next step (nothing is lost: resuming continues them) and stops new runs starting. */
export async function pauseAutomation(db: Queryable, orgId: string, id: string): Promise<{ automation: AutomationView; changed: boolean }> {
  const row = await requireAutomation(db, orgId, id, true);
  if (row.status === 'paused') return { automation: await view(db, orgId, row), changed: false };
  if (row.status !== 'active') throw new StewardError('conflict', `Automation ${id} is ${row.status}; only an active automation pauses`, { details: { reason: `automation_${row.status}` } });
  await db.query("UPDATE grow_automations SET status = 'paused', updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, id]);
  return { automation: await automationView(db, orgId, id), changed: true };
}

export async function countActiveAutomations(db: Queryable, orgId: string): Promise<number> {
  return (await queryOne<{ n: number }>(db, "SELECT count(*)::int AS n FROM grow_automations WHERE org_id = $1 AND status = 'active'", [orgId]))?.n ?? 0;
}

// ---------------------------------------------------------------- runs

export interface RunView {
  id: string; automationId: string; version: number; contactId: string; contactName: string | null; entry: number; status: RunStatus;
  step: number; stepCount: number; nextAction: string | null; nextAt: string | null; held: boolean; stopReason: string | null;
  failures: number; retrying: boolean; lastError: string | null; startedAt: string; finishedAt: string | null;
}

function runView(row: RunRow, steps: Step[], automationStatus: AutomationStatus, names: Map<string, string>): RunView {
  const going = row.status === 'active';
  const next = going ? steps[row.step] : undefined;
  return {
    id: row.id, automationId: row.automation_id, version: row.version, contactId: row.contact_id, contactName: names.get(row.contact_id) ?? null, entry: row.entry, status: row.status,
    step: Math.min(row.step + 1, steps.length), stepCount: steps.length,
    nextAction: going ? (row.pending_message_id ? 'Hand the queued message to the outbox' : next ? describeStep(next) : 'Finish') : null,
    nextAt: going ? iso(row.next_at) : null, held: going && automationStatus !== 'active', stopReason: row.stop_reason,
    failures: row.failures, retrying: going && row.attempts > 0, lastError: row.last_error, startedAt: row.started_at.toISOString(), finishedAt: iso(row.finished_at),
  };
}

async function runViews(db: Queryable, orgId: string, rows: RunRow[]): Promise<RunView[]> {
  const names = await contactNames(db, orgId, rows.map((r) => r.contact_id));
  const statuses = new Map<string, AutomationStatus>();
  const versions = new Map<string, Step[]>();
  const out: RunView[] = [];
  for (const row of rows) {
    if (!statuses.has(row.automation_id)) statuses.set(row.automation_id, (await requireAutomation(db, orgId, row.automation_id)).status);
    const key = `${row.automation_id}:${row.version}`;
    if (!versions.has(key)) versions.set(key, (await versionOf(db, orgId, row.automation_id, row.version)).steps);
    out.push(runView(row, versions.get(key)!, statuses.get(row.automation_id)!, names));
  }
  return out;
}

export async function listRuns(db: Queryable, orgId: string, filter: { automationId: string; status?: RunStatus; contactId?: string; limit: number }): Promise<RunView[]> {
  await requireAutomation(db, orgId, filter.automationId);
  const rows = await queryRows<RunRow>(db, `SELECT * FROM grow_automation_runs WHERE org_id = $1 AND automation_id = $2 AND ($3::text IS NULL OR status = $3)
    AND ($4::uuid IS NULL OR contact_id = $4) ORDER BY started_at DESC, id DESC LIMIT $5`, [orgId, filter.automationId, filter.status ?? null, filter.contactId ?? null, filter.limit]);
  return runViews(db, orgId, rows);
}

export async function cancelRun(db: Queryable, orgId: string, runId: string): Promise<{ run: RunView; changed: boolean }> {
  const row = await queryOne<RunRow>(db, 'SELECT * FROM grow_automation_runs WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, runId]);
  if (!row) throw notFound('Automation run', runId, 'grow_list_automation_runs lists an automation\'s runs.');
  if (row.status !== 'active') return { run: (await runViews(db, orgId, [row]))[0]!, changed: false };
  const updated = await queryOne<RunRow>(db, `UPDATE grow_automation_runs SET status = 'cancelled', stop_reason = 'cancelled by a person', next_at = NULL, finished_at = now(), updated_at = now()
    WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, runId]);
  return { run: (await runViews(db, orgId, [updated!]))[0]!, changed: true };
}

// ---------------------------------------------------------------- the trigger sweep

/**
 * The day whose birthdays are celebrated now: today where the organisation is (schedule's
 * organisation time zone), not in UTC, so a church in Auckland greets people on their own day.
 */
export async function birthdayDay(db: Queryable, orgId: string, now: Date): Promise<string> {
  return localDateAt(now, await organisationTimeZone(db, orgId));
}

/** What happened since `since` that the trigger names, read through the owning module's api.ts. */
async function happenings(db: Queryable, orgId: string, trigger: Trigger, since: Date, now: Date): Promise<ContactHappening[]> {
  switch (trigger.event) {
    case 'contact_created': return contactsCreatedSince(db, orgId, since);
    case 'first_time_guest': return firstVisitsSince(db, orgId, since);
    case 'life_event': return lifeEventsRecordedSince(db, orgId, since, trigger.eventTypes ?? []);
    case 'donation_recorded': return donationsRecordedSince(db, orgId, since);
    case 'birthday': return birthdaysOn(db, orgId, await birthdayDay(db, orgId, now));
    case 'missed_group_meetings': {
      const missing = await membersMissingMeetings(db, orgId, { canSeeRestricted: false, limit: HAPPENINGS_LIMIT });
      return missing.map((m) => ({ contactId: m.contactId, key: `missed-since:${m.since ?? 'never'}`, at: now }));
    }
    case 'form_submitted': {
      const rows = await queryRows<{ id: string; contact_id: string; created_at: Date }>(db, `SELECT id, contact_id, created_at FROM grow_submissions
        WHERE org_id = $1 AND created_at > $2 AND contact_id IS NOT NULL AND ($3::uuid IS NULL OR form_id = $3) ORDER BY created_at LIMIT ${HAPPENINGS_LIMIT}`, [orgId, since, trigger.formId ?? null]);
      return rows.map((r) => ({ contactId: r.contact_id, key: `submission:${r.id}`, at: r.created_at }));
    }
  }
}

export interface RunToStart { runId: string; workflowId: string }
export interface SweepResult { state: 'active' | 'paused' | 'gone'; toStart: RunToStart[] }

/**
 * Reads what happened since the automation's cursor (with an overlap), keeps the subjects who meet
 * its conditions now, and adds a run for each one not run before (or, with re-entry, for a new
 * happening while no run of theirs is going), all under a lock on the automation. Returns the runs
 * whose workflow has not been started yet (including any a crash left unstarted).
 */
export async function sweepAutomation(pool: Pool, orgId: string, automationId: string): Promise<SweepResult> {
  return withTenantTransaction(pool, orgId, async (db) => {
    const row = await queryOne<AutomationRow>(db, 'SELECT * FROM grow_automations WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, automationId]);
    if (!row) return { state: 'gone', toStart: [] };
    if (row.status !== 'active') return { state: 'paused', toStart: [] };
    const now = (await queryOne<{ now: Date }>(db, 'SELECT now() AS now'))!.now;
    const since = new Date(Math.max((row.trigger_cursor ?? now).getTime() - SWEEP_OVERLAP_MS, (row.activated_at ?? now).getTime()));
    const version = await versionOf(db, orgId, automationId, row.version);
    const found = await happenings(db, orgId, version.trigger, since, now);
    for (const happening of found) {
      // Timestamped happenings from before activation are not the automation's; day-based ones (a first visit, a birthday) and states count from the activation day.
      if (happening.at < (row.activated_at ?? now) && TIMESTAMPED.has(version.trigger.event)) continue;
      const runs = await queryRows<{ event_key: string; status: RunStatus }>(db, 'SELECT event_key, status FROM grow_automation_runs WHERE org_id = $1 AND automation_id = $2 AND contact_id = $3',
        [orgId, automationId, happening.contactId]);
      const blocked = row.allow_reentry ? runs.some((r) => r.event_key === happening.key || r.status === 'active') : runs.length > 0;
      if (blocked) continue;
      if (version.conditions && !(await contactMatchesRules(db, orgId, happening.contactId, version.conditions))) continue;
      const runId = randomUUID();
      await db.query(`INSERT INTO grow_automation_runs (id, org_id, automation_id, version, contact_id, entry, event_key) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [runId, orgId, automationId, row.version, happening.contactId, runs.length + 1, happening.key.slice(0, 200)]);
      await recordRunChange(db, orgId, runId, 'start', { fields: { automationId, version: row.version, contactId: happening.contactId, entry: runs.length + 1, status: 'active' }, contactId: happening.contactId });
    }
    // A full read (a large import) leaves the rest for the next sweep: the cursor moves only to the last happening read.
    const full = TIMESTAMPED.has(version.trigger.event) && found.length >= HAPPENINGS_LIMIT;
    await db.query('UPDATE grow_automations SET trigger_cursor = $3 WHERE org_id = $1 AND id = $2', [orgId, automationId, full ? found[found.length - 1]!.at : now]);
    const unstarted = await queryRows<{ id: string; contact_id: string; entry: number }>(db,
      "SELECT id, contact_id, entry FROM grow_automation_runs WHERE org_id = $1 AND automation_id = $2 AND status = 'active' AND NOT workflow_started ORDER BY started_at LIMIT 500", [orgId, automationId]);
    return { state: 'active', toStart: unstarted.map((r) => ({ runId: r.id, workflowId: automationRunWorkflowId(orgId, automationId, r.contact_id, r.entry) })) };
  });
}

export async function markRunsStarted(pool: Pool, orgId: string, runIds: readonly string[]): Promise<void> {
  await withTenantTransaction(pool, orgId, (db) => db.query('UPDATE grow_automation_runs SET workflow_started = true WHERE org_id = $1 AND id = ANY($2::uuid[])', [orgId, runIds]));
}

/** The workflow ids of an automation's going runs (poked when it resumes). */
export async function activeRunWorkflowIds(pool: Pool, orgId: string, automationId: string): Promise<string[]> {
  const rows = await withTenantTransaction(pool, orgId, (db) => queryRows<{ contact_id: string; entry: number }>(db,
    "SELECT contact_id, entry FROM grow_automation_runs WHERE org_id = $1 AND automation_id = $2 AND status = 'active' AND workflow_started", [orgId, automationId]));
  return rows.map((r) => automationRunWorkflowId(orgId, automationId, r.contact_id, r.entry));
}

// ---------------------------------------------------------------- advancing a run

export type Advance =
  | { state: 'next' }
  | { state: 'waiting'; until: number }
  | { state: 'held' }
  | { state: 'dispatch'; messageId: string }
  | { state: 'ended'; status: RunStatus };

export type Dispatch = (messageId: string) => Promise<{ kind: string; code?: string; until?: Date }>;

/** A run's move made by the automation itself, in the move's transaction: the system is the actor, the run the target. */
async function recordRunChange(db: Queryable, orgId: string, runId: string, verb: 'start' | 'advance' | 'finish' | 'fail', change: {
  fields: Record<string, unknown>; previous?: Record<string, unknown>; contactId?: string; outcome?: 'success' | 'failed';
}): Promise<void> {
  await recordJobChange(db, {
    orgId, channel: 'job:grow.automation', module: 'grow', noun: 'automation_run', verb, target: { type: 'automation_run', id: runId },
    fields: change.fields, previous: change.previous, outcome: change.outcome, contactIds: change.contactId ? [change.contactId] : [],
  });
}

async function finish(db: Queryable, orgId: string, runId: string, status: RunStatus, reason: string | null): Promise<Advance> {
  await db.query(`UPDATE grow_automation_runs SET status = $3, stop_reason = $4, next_at = NULL, pending_message_id = NULL, finished_at = now(), updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, runId, status, reason]);
  // The reason's code only (`crisis_hold`, `suppressed`…): its wording stays on the run.
  await recordRunChange(db, orgId, runId, 'finish', { fields: { status, stopReason: reason?.split(':')[0] ?? null }, previous: { status: 'active' } });
  return { state: 'ended', status };
}

/**
 * Why the person's run must stop before this step, or null: a crisis hold or an erased contact
 * always; for a run with a message still to send, whatever channels would refuse that message for
 * now (consent withdrawn, suppressed, no address).
 */
async function stopReason(db: Queryable, orgId: string, contactId: string, remaining: Step[], now: Date): Promise<string | null> {
  const nextMessage = remaining.find(isMessage);
  if (nextMessage) {
    const check = await checkRecipient(db, orgId, { contactId, channel: nextMessage.type === 'send_email' ? 'email' : 'sms', purpose: nextMessage.purpose, now, lock: true });
    return check.ok ? null : `${check.reason}: ${check.message}`.slice(0, 500);
  }
  if (!(await contactNames(db, orgId, [contactId])).has(contactId)) return 'contact_missing: the contact was erased or deleted';
  if (await isOnCrisisHold(db, orgId, contactId)) return 'crisis_hold: the person is on a crisis hold';
  return null;
}

/** Carries out one step inside the run's transaction; a message step answers the message to hand over after the commit. */
async function perform(db: Queryable, orgId: string, run: RunRow, step: Step, now: Date): Promise<{ nextAt: Date | null; messageId: string | null }> {
  const key = `grow-automation:${run.id}:${run.step}`;
  switch (step.type) {
    case 'wait': return { nextAt: new Date(now.getTime() + waitMs(step)), messageId: null };
    case 'send_email':
    case 'send_sms': {
      const message = await queueMessage(db, orgId, {
        contactId: run.contact_id, channel: step.type === 'send_email' ? 'email' : 'sms', purpose: step.purpose,
        subject: step.type === 'send_email' ? step.subject : null, body: step.body, idempotencyKey: key, usageTool: ACTIVATE_TOOL,
      });
      return { nextAt: null, messageId: message.messageId };
    }
    case 'add_tag': await addContactTags(db, orgId, run.contact_id, [step.tag]); break;
    case 'create_task': await openFollowUpTask(db, orgId, { contactId: run.contact_id, title: step.title, dueInDays: step.dueInDays }); break;
    case 'add_to_group': await addGroupMember(db, orgId, { groupId: step.groupId }, { contactId: run.contact_id }); break;
    case 'notify_staff': {
      const subject = (await contactNames(db, orgId, [run.contact_id])).get(run.contact_id) ?? 'A contact';
      const message = await queueMessage(db, orgId, {
        contactId: step.staffContactId, channel: 'email', purpose: 'service', subject: `Automation: ${subject}`, body: `${step.message}\n\n(${subject})`, idempotencyKey: `${key}:staff`, usageTool: ACTIVATE_TOOL,
      });
      return { nextAt: null, messageId: message.messageId };
    }
  }
  return { nextAt: null, messageId: null };
}

/**
 * One move of a run: hands over a message queued by the step before, holds while the automation is
 * paused, waits while its next action is not due, stops it (with the reason) for a crisis hold or a
 * withdrawn consent, finishes it after its last step, or carries out its next step.
 */
export async function advanceRun(pool: Pool, orgId: string, runId: string, dispatch: Dispatch): Promise<Advance> {
  const result = await withTenantTransaction(pool, orgId, async (db): Promise<Advance> => {
    const run = await queryOne<RunRow>(db, 'SELECT * FROM grow_automation_runs WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, runId]);
    if (!run) return { state: 'ended', status: 'cancelled' };
    if (run.status !== 'active') return { state: 'ended', status: run.status };
    const now = new Date();
    if (run.pending_message_id && !(run.next_at && run.next_at > now)) return { state: 'dispatch', messageId: run.pending_message_id };
    const automation = await queryOne<{ status: AutomationStatus }>(db, 'SELECT status FROM grow_automations WHERE org_id = $1 AND id = $2', [orgId, run.automation_id]);
    if (!automation) return finish(db, orgId, runId, 'cancelled', 'the automation is gone');
    if (automation.status !== 'active') return { state: 'held' };
    if (run.next_at && run.next_at > now) return { state: 'waiting', until: run.next_at.getTime() };
    const { steps } = await versionOf(db, orgId, run.automation_id, run.version);
    if (run.step >= steps.length) return finish(db, orgId, runId, 'completed', null);
    const reason = await stopReason(db, orgId, run.contact_id, steps.slice(run.step), now);
    if (reason) return finish(db, orgId, runId, 'stopped', reason);
    const done = await perform(db, orgId, run, steps[run.step]!, now);
    await db.query(`UPDATE grow_automation_runs SET step = step + 1, next_at = $3, pending_message_id = $4, attempts = 0, updated_at = now() WHERE org_id = $1 AND id = $2`,
      [orgId, runId, done.nextAt, done.messageId]);
    await recordRunChange(db, orgId, runId, 'advance', {
      fields: { step: run.step + 1, stepType: steps[run.step]!.type, messageId: done.messageId, nextAt: done.nextAt?.toISOString() ?? null }, previous: { step: run.step }, contactId: run.contact_id,
    });
    if (done.messageId) return { state: 'dispatch', messageId: done.messageId };
    return done.nextAt ? { state: 'waiting', until: done.nextAt.getTime() } : { state: 'next' };
  });
  if (result.state !== 'dispatch') return result;
  const sent = await dispatch(result.messageId);
  if (sent.kind === 'deferred' && sent.until) {
    // Quiet hours (or another send of it in progress): the same message is handed over when they end.
    await withTenantTransaction(pool, orgId, (db) => db.query('UPDATE grow_automation_runs SET next_at = $3, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, runId, sent.until]));
    return { state: 'waiting', until: sent.until.getTime() };
  }
  if (sent.kind === 'failed') throw new Error(`The outbox could not send the message (${sent.code ?? 'failed'})`);
  return withTenantTransaction(pool, orgId, async (db) => {
    if (sent.kind === 'refused') return finish(db, orgId, runId, 'stopped', `send_refused: the outbox refused the message (${sent.code ?? 'refused'})`);
    await db.query('UPDATE grow_automation_runs SET pending_message_id = NULL, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, runId]);
    return { state: 'next' };
  });
}

/** A failed attempt, for the runs list (failures, and retrying while attempts since the last good step are above zero); the error's message only. */
export async function recordRunFailure(pool: Pool, orgId: string, runId: string, message: string): Promise<void> {
  await withTenantTransaction(pool, orgId, (db) => db.query(`UPDATE grow_automation_runs SET failures = failures + 1, attempts = attempts + 1, last_error = $3, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, runId, message.slice(0, 500)]));
}

/** Retries are spent (or the failure is one no retry cures): the run ends as failed, with its last error. */
export async function failRun(pool: Pool, orgId: string, runId: string, message: string): Promise<void> {
  await withTenantTransaction(pool, orgId, async (db) => {
    const failed = await db.query(`UPDATE grow_automation_runs SET status = 'failed', last_error = $3, stop_reason = 'failed after retries', next_at = NULL,
      finished_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2 AND status = 'active'`, [orgId, runId, message.slice(0, 500)]);
    if ((failed.rowCount ?? 0) > 0) await recordRunChange(db, orgId, runId, 'fail', { fields: { status: 'failed', stopReason: 'failed after retries' }, previous: { status: 'active' }, outcome: 'failed' });
  });
}
