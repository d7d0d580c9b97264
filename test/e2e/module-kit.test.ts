import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syncAllSchedules } from '../../activities/schedules';
import { withTransaction } from '../../db/pool';
import { prepareDatabase, registerModule } from '../../modules';
import { allTools } from '../../modules/catalogue';
import { allContactRefs } from '../../modules/people/contact-refs';
import { mergeContacts } from '../../modules/people/merge';
import { purgeExpiredRecords } from '../../modules/platform/retention';
import { buildWorkflowBundle } from '../../worker/bundle';
import { Harness, type TestOrg } from '../helpers/harness';
import { startSmtpServer, type TestSmtpServer } from '../helpers/message-servers';
import kitdemo from '../kit/kitdemo';
import { RECEIPTS_PATH, receiptSignature } from '../kit/kitdemo/webhooks/receipts';

/**
 * A module built only with the kit (test/kit/kitdemo), registered here the way modules/index.ts
 * lists the real ones: its tools reach MCP and the bridge with their scopes, its migration
 * runs, its overview contribution shows in platform_overview, merge moves its rows, erasure
 * clears them, and maintenance runs its retention rule; its own workflow, activity, outbox source
 * and signed webhook run in the worker and the API; all with no edit anywhere else.
 */
registerModule(kitdemo);


/** uuid[] columns that hold ids of things other than contacts (each checked by hand), so merge and erasure need not touch them. */
const UUID_LISTS_OF_OTHER_THINGS = new Set<string>([
  'guests_service_checkin_settings.open_location_ids', // rooms open for a service
  'guests_sweep_reports.checkin_ids', // the check-in rows a sweep closed (their contacts follow merge on the rows themselves)
  'ticketing_promo_codes.ticket_type_ids', // the ticket types a promo code applies to
  'ticketing_refunds.ticket_ids', // the tickets a refund voided
  'spaces_rooms.approver_user_ids', // a room's approval group: team members' user ids, not contacts
]);

/** Waits for an asynchronous condition (a workflow's work landing), failing after 30 s. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a module built with the kit', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let smtp: TestSmtpServer;
  const webhookSecret = `kitdemo-${randomUUID()}`;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    process.env.KITDEMO_WEBHOOK_SECRET = webhookSecret;
    // Its own stack, on a bundle of its own: it registers a module the worker and API must know (the run's
    // bundle was built before), sets the mail server and webhook secret, and runs jobs for every organisation.
    const bundlePath = await buildWorkflowBundle(path.join(os.tmpdir(), `steward-kitdemo-bundle-${process.pid}.js`));
    harness = await Harness.start({ own: true, bundlePath });
    org = await harness.createOrg({ planCode: 'growth' });
    other = await harness.createOrg({ name: 'Other Church' });
  });

  afterAll(async () => {
    await harness?.close();
    await smtp?.close();
    delete process.env.KITDEMO_WEBHOOK_SECRET;
  });

  const contact = async (who: TestOrg, firstName: string) =>
    (await harness.call(who.apiKey, 'people_create_contact', { firstName, lastName: 'Visited' })).contact.id as string;

  it('is in the catalogue and on MCP, and its tools need its scopes', async () => {
    const names = allTools().filter((tool) => tool.module === 'kitdemo').map((tool) => tool.name).sort();
    expect(names).toEqual([
      'kitdemo_bulk_record_visits', 'kitdemo_get_thanks', 'kitdemo_get_visit', 'kitdemo_list_visits', 'kitdemo_record_visit', 'kitdemo_remove_visit',
      'kitdemo_restore_visit', 'kitdemo_send_thanks',
    ]);
    const client = await harness.mcpClient(org.apiKey, '?toolsets=kitdemo');
    try {
      // The toolset adds every kitdemo tool to the default list (where only listed tools appear).
      const listed = (await client.listTools()).tools.map((tool) => tool.name);
      expect(listed.filter((name) => name.startsWith('kitdemo_')).sort()).toEqual(names);
    } finally {
      await client.close();
    }
    const peopleOnly = await harness.createKey(org.orgId, ['people:read', 'people:write']);
    const refused = await harness.invoke(peopleOnly.apiKey, 'kitdemo_record_visit', { contactId: randomUUID(), place: 'Home' });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe('insufficient_scope');
    expect(refused.body.error?.message).toContain('live:write');
  });

  it('serves its widget as an MCP resource and links it from its tool', async () => {
    const client = await harness.mcpClient(org.apiKey, '?toolsets=kitdemo');
    try {
      const uri = 'ui://steward/w/kitdemo-visit-card';
      expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain(uri);
      const [page] = (await client.readResource({ uri })).contents as Array<{ mimeType: string; text: string }>;
      expect(page.mimeType).toBe('text/html;profile=mcp-app');
      expect(page.text).toContain('<title>Visit card</title>');
      const get = (await client.listTools()).tools.find((tool) => tool.name === 'kitdemo_get_visit');
      expect(get?._meta?.ui).toEqual({ resourceUri: uri });
    } finally {
      await client.close();
    }
  });

  it('records over MCP, pages with a cursor, and refuses a foreign contact exactly like a missing one', async () => {
    const ruth = await contact(org, 'Ruth');
    const client = await harness.mcpClient(org.apiKey);
    try {
      const recorded = await client.callTool({ name: 'kitdemo_record_visit', arguments: { contactId: ruth, place: 'Hospital' } });
      expect(recorded.isError).toBeFalsy();
      expect((recorded.structuredContent as any).visit).toMatchObject({ contactId: ruth, place: 'Hospital', deleted: false });
    } finally {
      await client.close();
    }
    const bulk = await harness.call(org.apiKey, 'kitdemo_bulk_record_visits', { visits: ['A', 'B', 'C', 'D'].map((place) => ({ contactId: ruth, place })) });
    expect(bulk.visits).toHaveLength(4);

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await harness.call(org.apiKey, 'kitdemo_list_visits', { contactId: ruth, limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.visits.length).toBeLessThanOrEqual(2);
      seen.push(...page.visits.map((visit: { id: string }) => visit.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);

    const badCursor = await harness.invoke(org.apiKey, 'kitdemo_list_visits', { cursor: 'not-a-cursor' });
    expect(badCursor.body.error?.code).toBe('validation_failed');

    const foreign = await contact(other, 'Elsewhere');
    const refusedForeign = await harness.invoke(org.apiKey, 'kitdemo_record_visit', { contactId: foreign, place: 'Home' });
    const missingId = randomUUID();
    const refusedMissing = await harness.invoke(org.apiKey, 'kitdemo_record_visit', { contactId: missingId, place: 'Home' });
    expect(refusedForeign.body.error?.code).toBe('not_found');
    expect(refusedForeign.status).toBe(refusedMissing.status);
    expect(refusedForeign.body.error?.message.replace(foreign, 'ID')).toBe(refusedMissing.body.error?.message.replace(missingId, 'ID'));
  });

  it('refuses a bulk call past its maximum as a whole, writing nothing', async () => {
    const ann = await contact(org, 'Ann');
    const tooMany = await harness.invoke(org.apiKey, 'kitdemo_bulk_record_visits', { visits: Array.from({ length: 6 }, () => ({ contactId: ann, place: 'Home' })) });
    expect(tooMany.body.error?.code).toBe('validation_failed');
    const page = await harness.call(org.apiKey, 'kitdemo_list_visits', { contactId: ann });
    expect(page.visits).toEqual([]);
  });

  it('removes and restores; restoring a live visit or another organisation\'s is not found', async () => {
    const ben = await contact(org, 'Ben');
    const { visit } = await harness.call(org.apiKey, 'kitdemo_record_visit', { contactId: ben, place: 'Cafe' });
    const removed = await harness.call(org.apiKey, 'kitdemo_remove_visit', { visitId: visit.id });
    expect(removed.visit.deleted).toBe(true);
    expect((await harness.call(org.apiKey, 'kitdemo_list_visits', { contactId: ben })).visits).toEqual([]);
    expect((await harness.invoke(other.apiKey, 'kitdemo_restore_visit', { visitId: visit.id })).body.error?.code).toBe('not_found');
    const restored = await harness.call(org.apiKey, 'kitdemo_restore_visit', { visitId: visit.id });
    expect(restored.visit.deleted).toBe(false);
    expect((await harness.invoke(org.apiKey, 'kitdemo_restore_visit', { visitId: visit.id })).body.error?.code).toBe('not_found');
  });

  it('adds its numbers to platform_overview', async () => {
    const mine = await harness.call(org.apiKey, 'platform_overview', {});
    const theirs = await harness.call(other.apiKey, 'platform_overview', {});
    expect(mine.kitdemoVisits).toBeGreaterThanOrEqual(6);
    expect(theirs.kitdemoVisits).toBe(0);
    expect(mine.modules).toContain('kitdemo');
  });

  it('merge moves its rows to the kept contact; erasure keeps the row and clears the person', async () => {
    const keep = await contact(org, 'Kay');
    const duplicate = await contact(org, 'Kay');
    const { visit } = await harness.call(org.apiKey, 'kitdemo_record_visit', { contactId: duplicate, place: 'Home' });
    await withTransaction(harness.pool, (db) => mergeContacts(db, org.orgId, keep, duplicate, null));
    const moved = await harness.call(org.apiKey, 'kitdemo_get_visit', { visitId: visit.id });
    expect(moved.visit.contactId).toBe(keep);

    const erased = await harness.call(org.apiKey, 'people_delete_contact', { contactId: keep, permanent: true });
    expect(erased.deleted).toBe('permanent');
    const after = await harness.call(org.apiKey, 'kitdemo_get_visit', { visitId: visit.id });
    expect(after.visit).toMatchObject({ id: visit.id, contactId: null, place: 'Home' });
  });

  it('has its periodic job scheduled and run through Temporal, as of the run and per organisation', async () => {
    await syncAllSchedules(harness.temporal, harness.pool, harness.taskQueue);
    const described = await harness.temporal.schedule.getHandle(`job-kitdemo.count_visits-${harness.taskQueue}`).describe();
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'moduleJobWorkflow', args: [{ job: 'kitdemo.count_visits' }] });
    expect(described.spec.intervals?.[0].every).toBe(3_600_000);

    const mine = await harness.call(org.apiKey, 'kitdemo_record_visit', { contactId: await contact(org, 'Job'), place: 'Ward 4' });
    await harness.call(other.apiKey, 'kitdemo_record_visit', { contactId: await contact(other, 'Elsewhere'), place: 'Home' });
    const total = async (orgId?: string) =>
      Number((await harness.pool.query('SELECT count(*)::int AS n FROM kitdemo_visits WHERE deleted_at IS NULL AND ($1::uuid IS NULL OR org_id = $1)', [orgId ?? null])).rows[0].n);
    expect(await harness.runJob('kitdemo.count_visits', { orgId: org.orgId })).toEqual({ visits: await total(org.orgId) });
    expect(await harness.runJob('kitdemo.count_visits')).toEqual({ visits: await total() });
    // As of a moment before the visit was recorded, it is not counted.
    const before = new Date(new Date(mine.visit.createdAt).getTime() - 1);
    expect((await harness.runJob('kitdemo.count_visits', { orgId: org.orgId, now: before })).visits).toBe(await total(org.orgId) - 1);
    await expect(harness.runJob('kitdemo.no_such_job')).rejects.toThrow();
  });

  it('sends through the outbox from its own workflow and activity, counted once, and takes a signed read receipt', async () => {
    const { visit } = await harness.call(org.apiKey, 'kitdemo_record_visit', { contactId: await contact(org, 'Thea'), place: 'Home' });
    const email = `thea-${randomUUID()}@example.org`;
    const queued = await harness.call(org.apiKey, 'kitdemo_send_thanks', { visitId: visit.id, email });
    expect(queued.thanks).toMatchObject({ visitId: visit.id, email, status: 'queued', readAt: null });
    const thanksId = queued.thanks.id as string;

    // The follow-up started the module's workflow, whose activity sent through the shared outbox.
    await eventually(async () => (await harness.call(org.apiKey, 'kitdemo_get_thanks', { thanksId })).thanks.status === 'sent');
    await eventually(async () => smtp.delivered.some((mail) => mail.to.includes(email)));
    const mails = smtp.delivered.filter((mail) => mail.to.includes(email));
    expect(mails).toHaveLength(1);
    expect(mails[0].raw).toContain('Subject: Thank you for your visit');
    const usage = await harness.pool.query("SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1 AND feature = 'email_sends' AND idempotency_key = $2", [org.orgId, `kitdemo-thanks-${thanksId}`]);
    expect(usage.rows[0].n).toBe(1);

    const body = JSON.stringify({ orgId: org.orgId, thanksId });
    const post = (payload: string, signature?: string) => fetch(`${harness.url}${RECEIPTS_PATH}`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...(signature ? { 'x-kitdemo-signature': signature } : {}) }, body: payload,
    });
    // Unsigned, wrongly signed, or signed for another body: refused, nothing recorded.
    expect((await post(body)).status).toBe(401);
    expect((await post(body, receiptSignature('not-the-secret', body))).status).toBe(401);
    expect((await post(body, receiptSignature(webhookSecret, `${body} `))).status).toBe(401);
    // Another organisation's id for this thank-you is a missing one.
    const foreign = JSON.stringify({ orgId: other.orgId, thanksId });
    expect((await post(foreign, receiptSignature(webhookSecret, foreign))).status).toBe(404);
    expect((await harness.call(org.apiKey, 'kitdemo_get_thanks', { thanksId })).thanks.readAt).toBeNull();

    const accepted = await post(body, receiptSignature(webhookSecret, body));
    expect(accepted.status).toBe(200);
    expect((await harness.call(org.apiKey, 'kitdemo_get_thanks', { thanksId })).thanks.readAt).not.toBeNull();
    // The receipt reached the workflow, which ends once its thank-you is sent and read.
    const outcome = await harness.temporal.workflow.getHandle(`kitdemo-thanks-${thanksId}`).result();
    expect(outcome).toEqual({ sent: 'sent', read: true });
  });

  it('needed nothing outside its folder and its registry line: no kernel or module source names it', () => {
    const root = path.join(__dirname, '..', '..');
    const naming: string[] = [];
    const visit = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) visit(full);
        else if (/\.(ts|mts|js|json)$/.test(entry.name) && /kitdemo/i.test(fs.readFileSync(full, 'utf8'))) naming.push(path.relative(root, full));
      }
    };
    for (const folder of ['core', 'db', 'temporal', 'modules', 'api', 'activities', 'workflows', 'worker', 'scripts']) visit(path.join(root, folder));
    expect(naming).toEqual([]);
    // And it reaches other modules only through their public surface (modules/<m>/api.ts), never their internals.
    const kit = path.join(root, 'test', 'kit', 'kitdemo');
    const reached = new Set<string>();
    const collect = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) collect(full);
        else for (const match of fs.readFileSync(full, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
          const target = path.relative(root, path.resolve(path.dirname(full), match[1]));
          if (!target.startsWith(path.join('test', 'kit', 'kitdemo'))) reached.add(target.split(path.sep).join('/'));
        }
      }
    };
    collect(kit);
    const internals = [...reached].filter((target) => /^modules\/[^/]+\//.test(target) && !/^modules\/[^/]+\/api$/.test(target));
    expect(internals).toEqual([]);
  });

  it('has its retention rule run by daily maintenance', async () => {
    const counts = await withTransaction(harness.pool, (db) => purgeExpiredRecords(db));
    expect(counts).toHaveProperty('kitdemoRemovedVisits');
    expect(counts).toHaveProperty('postcodeCache');
  });

  it('plan allowances come from module declarations: a missing row is added, an operator\'s change is kept', async () => {
    await harness.pool.query(`DELETE FROM plan_allowances WHERE plan_code = 'starter' AND feature = 'contacts'`);
    await harness.pool.query(`UPDATE plan_allowances SET monthly_limit = 7 WHERE plan_code = 'growth' AND feature = 'tickets'`);
    await prepareDatabase(harness.pool);
    const { rows } = await harness.pool.query(`SELECT plan_code, feature, monthly_limit FROM plan_allowances
      WHERE (plan_code, feature) IN (('starter', 'contacts'), ('growth', 'tickets')) ORDER BY plan_code`);
    expect(rows).toEqual([
      { plan_code: 'growth', feature: 'tickets', monthly_limit: 7 },
      { plan_code: 'starter', feature: 'contacts', monthly_limit: 500 },
    ]);
  });

  it('every column that names a contact, in every module\'s tables, is declared for merge and erasure', async () => {
    const { rows } = await harness.pool.query<{ table_name: string; column_name: string }>(`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name <> 'contacts' AND (column_name = 'contact_id' OR column_name LIKE '%\\_contact\\_id')`);
    const declared = new Set(allContactRefs().map((ref) => `${ref.table}.${ref.column}`));
    const undeclared = rows.map((row) => `${row.table_name}.${row.column_name}`).filter((column) => !declared.has(column));
    expect(undeclared).toEqual([]);
    expect(declared.has('kitdemo_visits.contact_id')).toBe(true);
  });

  it('every list of ids (uuid[]) is either a declared list of contacts or named here as holding something else', async () => {
    // A list of contact ids hides behind any name (authorised_pickup_ids): so every uuid[] column must be accounted for.
    const { rows } = await harness.pool.query<{ table_name: string; column_name: string }>(`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND data_type = 'ARRAY' AND udt_name = '_uuid' ORDER BY table_name, column_name`);
    const declaredLists = new Set(allContactRefs().filter((ref) => ref.list).map((ref) => `${ref.table}.${ref.column}`));
    const unaccounted = rows.map((row) => `${row.table_name}.${row.column_name}`)
      .filter((column) => !declaredLists.has(column) && !UUID_LISTS_OF_OTHER_THINGS.has(column));
    expect(unaccounted).toEqual([]);
    expect(declaredLists.size).toBeGreaterThan(0);
  });
});
