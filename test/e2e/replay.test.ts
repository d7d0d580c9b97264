import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { createOutbox } from '../../activities/outbox';
import { createOutreachActivities } from '../../modules/people/activities/outreach';
import type { MessageProvider } from '../../activities/provider-kit';
import { payloadCodec } from '../../temporal/client';
import { BUNDLE_PATH_ENV } from '../helpers/env';
import { Harness, type TestOrg } from '../helpers/harness';
import { startSmtpServer } from '../helpers/message-servers';
import { startTestMessagingSandbox } from '../helpers/messaging-sandbox';
import { eventually } from '../helpers/sandbox-stack';
import { whatsAppReviewWorkflowId } from '../../modules/templates/whatsapp-review';

/**
 * Replay safety. Histories of real runs (tool calls, the follow-up tool call,
 * pastoral outreach, agent proposals, a grow campaign and automation run, a
 * WhatsApp template's review, before and after its first look) are committed under
 * test/fixtures/histories/ and replayed against the current workflow bundle:
 * a change to workflow code that would break running workflows (a command
 * added, removed or reordered without `patched()`) fails here.
 *
 * Normal runs only replay. `RECORD_HISTORIES=1 npx jest test/e2e/replay.test.ts`
 * runs the scenarios against the dev server and (over)writes one fixture per
 * scenario; `RECORD_HISTORIES=<prefix>,…` writes only the scenarios whose names start
 * with one of them (`RECORD_SUFFIX=.v1` names them `<scenario>.v1.json`). Keep old fixtures when workflow code changes on purpose: rename
 * them (e.g. `outreach-edit-approve-send.v1.json`) before recording new ones,
 * since workflows started under the old code may still be running.
 *
 * The negative test logs a core WARN "Nondeterminism error": that is the point of it.
 *
 * Payloads are stored decrypted (the test payload key is random per run), so
 * the fixtures replay without a codec; their data is plain JSON (base64, as in any
 * exported history) and holds test data only.
 * The format is protobufjs's object form of the History message (int64 and bytes
 * as strings, enums by name): the SDK's historyToJSON/historyFromJSON fail with
 * "type must be a Type" in this install (@temporalio/common and @temporalio/proto
 * each carry their own protobufjs copy).
 */

const FIXTURES_DIR = path.join(__dirname, '..', 'fixtures', 'histories');
const RECORD = Boolean(process.env.RECORD_HISTORIES);
const RECORD_ONLY = process.env.RECORD_HISTORIES === '1' ? [] : (process.env.RECORD_HISTORIES ?? '').split(',').filter(Boolean);
const recordsScenario = (scenario: string) => RECORD_ONLY.length === 0 || RECORD_ONLY.some((prefix) => scenario.startsWith(prefix));
const REQUIRED_TYPES = [
  'toolCallWorkflow', 'toolCallWithFollowUpWorkflow', 'outreachWorkflow', 'proposalWorkflow',
  // Long-lived (days to a month), so a change that breaks them meets running workflows.
  'growCampaignWorkflow', 'growAutomationRunWorkflow', 'whatsAppTemplateReviewWorkflow',
];

interface HistoryFixture {
  scenario: string;
  workflowType: string;
  workflowId: string;
  recordedWith: string;
  history: { events: Array<Record<string, any>> };
}

const { History } = temporal.api.history.v1;
const { Payload } = temporal.api.common.v1;
const AS_OBJECT = { longs: String, enums: String, bytes: String } as const;
const ENCRYPTED = Buffer.from('binary/encrypted').toString('base64');

/** Every encrypted payload anywhere in a history (object form), decrypted with this run's key. */
async function decryptPayloads(value: unknown): Promise<unknown> {
  if (Array.isArray(value)) return Promise.all(value.map(decryptPayloads));
  if (!value || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const metadata = record.metadata as Record<string, unknown> | undefined;
  if (metadata && typeof metadata === 'object' && metadata.encoding === ENCRYPTED) {
    const [plain] = await payloadCodec().decode([Payload.fromObject(record)]);
    return Payload.toObject(Payload.fromObject(plain), AS_OBJECT);
  }
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(record)) out[key] = await decryptPayloads(inner);
  return out;
}

function loadFixtures(): HistoryFixture[] {
  if (!fs.existsSync(FIXTURES_DIR)) return [];
  return fs.readdirSync(FIXTURES_DIR).filter((name) => name.endsWith('.json')).sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, name), 'utf8')) as HistoryFixture);
}

/** A tag of one consenting reader: a campaign's audience. */
async function readerTagged(harness: Harness, org: TestOrg, email: string): Promise<{ tagId: string; contactId: string }> {
  const tagId = randomUUID();
  await harness.pool.query('INSERT INTO tags (id, org_id, name) VALUES ($1, $2, $3)', [tagId, org.orgId, `Readers ${email}`]);
  const { contact } = await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Rhoda', lastName: 'Reader', email });
  await harness.pool.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) VALUES ($1, $2, $3)', [org.orgId, contact.id, tagId]);
  await harness.call(org.apiKey, 'channels_record_consent', { contactId: contact.id, channel: 'email', purpose: 'marketing', source: 'website form', wording: 'Send me church news' });
  return { tagId, contactId: contact.id };
}

/** Calls a tool that waits for a person's approval; the proposal it was held for. */
async function heldForApproval(harness: Harness, org: TestOrg, tool: string, args: Record<string, unknown>): Promise<string> {
  const response = await harness.invoke(org.apiKey, tool, args);
  expect(response.body.error?.code).toBe('approval_required');
  return response.body.error!.details.proposalId;
}

/** Approves what a tool call was held for, as a person would. */
async function approved(harness: Harness, org: TestOrg, tool: string, args: Record<string, unknown>): Promise<void> {
  await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId: await heldForApproval(harness, org, tool, args) });
}

/** Runs grow's two long-lived workflows to their end: a campaign and one automation run. */
async function growScenarios(harness: Harness, org: TestOrg): Promise<{ campaignWorkflowId: string; automationRunId: string }> {
  const { tagId } = await readerTagged(harness, org, 'rhoda@replay.example');
  const { campaign } = await harness.call(org.apiKey, 'grow_create_campaign', { name: 'Replay carols', audience: { kind: 'tag', id: tagId }, subject: 'Carols', body: 'Carols on Sunday: https://example.org/carols' });
  const { previewHash } = await harness.call(org.apiKey, 'grow_preview_campaign', { campaignId: campaign.id });
  await approved(harness, org, 'grow_schedule_campaign', { campaignId: campaign.id, previewHash });
  const campaignWorkflowId = `grow-campaign-${campaign.id}`;
  await harness.temporal.workflow.getHandle(campaignWorkflowId).result();

  const { automation } = await harness.call(org.apiKey, 'grow_create_automation', {
    name: 'Replay welcome', trigger: { event: 'contact_created' },
    conditions: { match: 'all', rules: [{ field: 'email', operator: 'is_not_empty' }] },
    steps: [{ type: 'wait', seconds: 1 }, { type: 'send_email', subject: 'Welcome', body: 'We are glad you came.' }],
  });
  await approved(harness, org, 'grow_activate_automation', { automationId: automation.id });
  const { contactId } = await readerTagged(harness, org, 'wren@replay.example');
  const automationRunId = `grow-automation-${org.orgId}-${automation.id}-${contactId}`;
  await eventually(() => historyEvents(harness, automationRunId), (events) => events.some((event) => event.workflowExecutionCompletedEventAttributes), 30_000, 50);
  // Its watcher never ends on its own: paused, it stops reading before the stack closes.
  await harness.call(org.apiKey, 'grow_pause_automation', { automationId: automation.id });
  return { campaignWorkflowId, automationRunId };
}

/** A workflow's history so far, in object form; none while it has not started. */
async function historyEvents(harness: Harness, workflowId: string): Promise<Array<Record<string, any>>> {
  const fetched = await harness.temporal.workflow.getHandle(workflowId).fetchHistory().catch(() => undefined);
  return fetched ? History.toObject(History.fromObject(fetched), AS_OBJECT).events as Array<Record<string, any>> : [];
}

const quietLogger = {
  log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined,
  warn: () => undefined, error: (message: string) => console.error(message),
};

describe('workflow replay', () => {
  // Recording rewrites the committed fixtures, so it is only defined when asked for; normal runs only replay.
  if (RECORD) it('records histories of real runs (RECORD_HISTORIES=1)', async () => {
    const smtp = await startSmtpServer();
    const saved = { ...process.env };
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    process.env.SMTP_FROM = 'Replay Chapel <office@replay.example>';
    // An automation's trigger is read every second, not every minute, so its run starts at once.
    process.env.GROW_AUTOMATION_POLL_SECONDS = '1';

    // One item goes through a provider whose first call ends with the outcome unknown (as SMTP after a dropped connection).
    let flakyItem: string | null = null;
    let flakyFailures = 1;
    const flaky: MessageProvider = {
      idempotent: false,
      async send(message) {
        if (flakyFailures-- > 0) throw new Error('Connection closed unexpectedly');
        return { providerMessageId: message.idempotencyKey };
      },
    };
    let harness!: Harness;
    harness = await Harness.start({
      wrapActivities: (activities) => ({
        ...activities,
        sendOutreach: (orgId: string, itemId: string) => (itemId === flakyItem
          ? createOutreachActivities({ pool: harness.pool, outbox: createOutbox({ pool: harness.pool, providerFor: () => flaky }) }).sendOutreach(orgId, itemId)
          : activities.sendOutreach(orgId, itemId)),
      }),
    });
    const recorded: Array<{ scenario: string; workflowId: string }> = [];
    try {
      const org: TestOrg = await harness.createOrg({ name: 'Replay Chapel' });
      const callWorkflowId = (key: string) => `call-${org.orgId}-${key}`;
      const invokeWithKey = (tool: string, args: unknown, key: string) => harness.invoke(org.apiKey, tool, args, { 'idempotency-key': key });

      // Plain tool calls: a write, a read, and one that fails with a stable code.
      const created = await invokeWithKey('people_create_contact', { firstName: 'Ruth', lastName: 'Replay', email: 'ruth@replay.example' }, 'replay-create-contact');
      expect(created.body.ok).toBe(true);
      const contactId: string = created.body.result.contact.id;
      recorded.push({ scenario: 'tool-call-write', workflowId: callWorkflowId('replay-create-contact') });
      expect((await invokeWithKey('people_get_contact', { contactId }, 'replay-get-contact')).body.ok).toBe(true);
      recorded.push({ scenario: 'tool-call-read', workflowId: callWorkflowId('replay-get-contact') });
      expect((await invokeWithKey('people_get_contact', { contactId: randomUUID() }, 'replay-get-missing')).status).toBe(404);
      recorded.push({ scenario: 'tool-call-not-found', workflowId: callWorkflowId('replay-get-missing') });

      // Outreach: queued by a follow-up tool call, edited, approved and sent over SMTP.
      const queued = await invokeWithKey('people_create_outreach', { contactId, subject: 'Thinking of you', body: 'Hello Ruth' }, 'replay-create-outreach');
      expect(queued.body.ok).toBe(true);
      const itemId: string = queued.body.result.item.id;
      recorded.push({ scenario: 'tool-call-follow-up', workflowId: callWorkflowId('replay-create-outreach') });
      await harness.call(org.apiKey, 'people_edit_outreach', { outreachId: itemId, body: 'Hello Ruth, we are thinking of you.' });
      expect((await harness.call(org.apiKey, 'people_approve_outreach', { outreachId: itemId, contentVersion: 2 })).item.status).toBe('sent');
      recorded.push({ scenario: 'outreach-edit-approve-send', workflowId: `outreach-${itemId}` });

      // Outreach declined.
      const declinedItem = (await harness.call(org.apiKey, 'people_create_outreach', { contactId, subject: 'Hello', body: 'A second note' })).item;
      await harness.call(org.apiKey, 'people_decline_outreach', { outreachId: declinedItem.id, reason: 'Spoke in person' });
      recorded.push({ scenario: 'outreach-declined', workflowId: `outreach-${declinedItem.id}` });

      // Outreach whose first send may have been delivered: needs_review, then a person sends it again.
      const unsure = (await harness.call(org.apiKey, 'people_create_outreach', { contactId, subject: 'Checking in', body: 'A third note' })).item;
      flakyItem = unsure.id;
      const parked = (await harness.call(org.apiKey, 'people_approve_outreach', { outreachId: unsure.id, contentVersion: 1 })).item;
      expect(parked).toMatchObject({ status: 'approved', sendError: { code: 'needs_review' } });
      expect((await harness.call(org.apiKey, 'people_approve_outreach', { outreachId: unsure.id, contentVersion: 1 })).item.status).toBe('sent');
      recorded.push({ scenario: 'outreach-needs-review-resent', workflowId: `outreach-${unsure.id}` });

      // Proposals: a gated merge approved (its action runs as a child tool call), and one rejected.
      const duplicatePair = async (name: string): Promise<[string, string]> => {
        const [a, b] = [randomUUID(), randomUUID()];
        await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, created_at) VALUES
          ($1, $3, $4, 'Dup', $5, now() - interval '2 days'), ($2, $3, $4, 'Dup', $5, now() - interval '1 day')`,
        [a, b, org.orgId, name, `${name.toLowerCase()}@replay.example`]);
        return [a, b];
      };
      const propose = (keep: string, merge: string) => heldForApproval(harness, org, 'people_merge_data_quality_contacts', { keepContactId: keep, mergeContactId: merge, actionSummary: 'Merge the duplicate' });
      const approvedId = await propose(...await duplicatePair('Anna'));
      expect((await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId: approvedId })).status).toBe('approved');
      recorded.push({ scenario: 'proposal-approved', workflowId: `proposal-${approvedId}` });
      recorded.push({ scenario: 'proposal-action', workflowId: `call-${org.orgId}-proposal-${approvedId}` });
      const rejectedId = await propose(...await duplicatePair('Bert'));
      expect((await harness.call(org.apiKey, 'platform_reject_proposal', { proposalId: rejectedId, reason: 'Different people' })).status).toBe('rejected');
      recorded.push({ scenario: 'proposal-rejected', workflowId: `proposal-${rejectedId}` });

      // Grow: a campaign emailed to one reader, and an automation's run (a wait, then an email).
      const { campaignWorkflowId, automationRunId } = await growScenarios(harness, org);
      recorded.push({ scenario: 'grow-campaign-sent', workflowId: campaignWorkflowId });
      recorded.push({ scenario: 'grow-automation-run', workflowId: automationRunId });

      // A WhatsApp template's review, decided by the provider's signed status webhook.
      const messaging = await startTestMessagingSandbox(harness.url);
      try {
        const { version } = await harness.call(org.apiKey, 'templates_create_template', {
          name: 'Replay rota', channel: 'whatsapp', purpose: 'service', subject: 'Rota', body: 'Hello {{first_name}}, see you on Sunday.',
        });
        const submitted = await harness.call(org.apiKey, 'templates_submit_whatsapp_template', { versionId: version.id });
        const reviewId = whatsAppReviewWorkflowId(version.id);
        // Decided only once the workflow waits, after its first look.
        await eventually(() => historyEvents(harness, reviewId), (events) => events.some((event) => event.timerStartedEventAttributes), 30_000, 50);
        expect((await messaging.setTemplateStatus(submitted.version.whatsapp.providerTemplateId, 'APPROVED'))?.status).toBe(200);
        expect(await harness.temporal.workflow.getHandle(reviewId).result()).toMatchObject({ status: 'approved' });
        recorded.push({ scenario: 'whatsapp-review-webhook', workflowId: reviewId });
      } finally {
        await messaging.close();
      }

      const sdkVersion = (JSON.parse(fs.readFileSync(require.resolve('@temporalio/worker/package.json'), 'utf8')) as { version: string }).version;
      fs.mkdirSync(FIXTURES_DIR, { recursive: true });
      for (const { scenario, workflowId } of recorded.filter(({ scenario }) => recordsScenario(scenario))) {
        const handle = harness.temporal.workflow.getHandle(workflowId);
        await handle.result().catch(() => undefined);
        const fetched = await handle.fetchHistory();
        const json = (await decryptPayloads(History.toObject(History.fromObject(fetched), AS_OBJECT))) as HistoryFixture['history'];
        const workflowType = json.events[0].workflowExecutionStartedEventAttributes.workflowType.name as string;
        const fixture: HistoryFixture = { scenario, workflowType, workflowId, recordedWith: `@temporalio/worker ${sdkVersion}`, history: json };
        fs.writeFileSync(path.join(FIXTURES_DIR, `${scenario}${process.env.RECORD_SUFFIX ?? ''}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
      }
    } finally {
      await harness.close();
      await smtp.close();
      process.env = saved;
    }
  }, 180_000);

  it('replays every committed history against the current workflow code', async () => {
    const fixtures = loadFixtures();
    const types = new Set(fixtures.map((fixture) => fixture.workflowType));
    for (const type of REQUIRED_TYPES) expect([...types]).toContain(type);

    const failures: string[] = [];
    let replayed = 0;
    const histories = fixtures.map((fixture) => ({ workflowId: fixture.workflowId, history: History.fromObject(fixture.history) }));
    for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: process.env[BUNDLE_PATH_ENV]! } }, histories)) {
      replayed += 1;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(fixtures.length);
  }, 60_000);

  it('fails the replay when workflow code changes non-deterministically', async () => {
    const fixture = loadFixtures().find((candidate) => candidate.scenario === 'tool-call-write');
    expect(fixture).toBeDefined();
    const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../helpers/nondeterministic-workflows'), logger: quietLogger });
    await expect(Worker.runReplayHistory({ workflowBundle: { code } }, History.fromObject(fixture!.history), fixture!.workflowId))
      .rejects.toMatchObject({ name: 'DeterminismViolationError' });
  }, 60_000);
});
