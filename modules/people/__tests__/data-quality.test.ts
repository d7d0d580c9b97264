import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * Data quality over MCP against the real server, worker, Postgres and Temporal: a scan runs as a
 * job and scores the seeded data as the formulas say; a fix is previewed, applied exactly as
 * previewed (a wrong or stale hash applies nothing) and undone; duplicates are found (exact groups,
 * fuzzy pairs with reasons), one pair dismissed for good and restored, one merged, and two
 * approved merges of the same pair at once merge once.
 */
describe('people data quality over MCP', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  const ids: Record<string, string> = {};

  async function seed(target: TestOrg, key: string, fields: Record<string, unknown>): Promise<string> {
    const id = randomUUID();
    const columns = ['id', 'org_id', ...Object.keys(fields)];
    const values = [id, target.orgId, ...Object.values(fields)];
    await harness.pool.query(`INSERT INTO contacts (${columns.join(', ')}) VALUES (${columns.map((_c, i) => `$${i + 1}`).join(', ')})`, values);
    ids[key] = id;
    return id;
  }

  async function waitForJob(jobId: string, client = mcp): Promise<any> {
    for (let i = 0; i < 600; i++) {
      const { job } = await mcpCall(client, 'people_get_data_quality_job', { jobId });
      if (job.status === 'completed' || job.status === 'failed') return job;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`job ${jobId} did not finish`);
  }

  async function scan(): Promise<any> {
    const started = await mcpCall(mcp, 'people_run_data_quality_scan', {});
    expect(['queued', 'running']).toContain(started.job.status);
    const job = await waitForJob(started.job.id);
    expect(job.status).toBe('completed');
    return job;
  }

  const contactRow = async (id: string) => (await harness.pool.query('SELECT * FROM contacts WHERE id = $1', [id])).rows[0];

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Data Quality Chapel', country: 'GB' });
    other = await harness.createOrg({ name: 'Elsewhere Church' });
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=people');
    // Town lookups come from the postcode cache (no outside service in tests).
    await harness.pool.query(`INSERT INTO postcode_cache (postcode, result) VALUES
      ('SW1A 1AA', '{"postcode":"SW1A 1AA","city":"Westminster","county":"London","country":"England"}'),
      ('LS6 2QE', '{"postcode":"LS6 2QE","city":"Leeds","county":"West Yorkshire","country":"England"}')
      ON CONFLICT (postcode) DO UPDATE SET result = EXCLUDED.result, fetched_at = now()`);
    const full = { status: 'subscribed', date_of_birth: '1970-01-01', address_city: 'Leeds', address_county: 'West Yorkshire' };
    // Capitals, a gmial typo, a national phone number, a postcode in lower case without its town.
    await seed(org, 'mary', { first_name: 'MARY', last_name: 'JONES', email: 'Mary.Jones@GMIAL.com', phone: '07700 900123', address_postcode: 'sw1a1aa', status: 'subscribed', date_of_birth: '1960-03-03' });
    // Same email once lower-cased: an exact group with Mary.
    await seed(org, 'mary2', { ...full, first_name: 'Mary', last_name: 'Jones', email: 'mary.jones@gmial.com', address_postcode: 'LS1 1AA' });
    // Same phone once in E.164.
    await seed(org, 'phoneA', { ...full, first_name: 'Alan', last_name: 'Turing', email: 'alan@example.org', phone: '+447700900456', address_postcode: 'LS1 1AB' });
    await seed(org, 'phoneB', { ...full, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.org', phone: '07700 900456', address_postcode: 'LS1 1AC' });
    // Likely pairs: alike names, same date of birth and postcode; the second pair alike names and the same date of birth.
    await seed(org, 'jon1', { ...full, first_name: 'Jonathan', last_name: 'Smithson', email: 'jonathan@example.org', date_of_birth: '1980-01-01', address_postcode: 'LS6 2QE', created_at: new Date(Date.now() - 86_400_000) });
    await seed(org, 'jon2', { ...full, first_name: 'Jonathon', last_name: 'Smithson', email: 'jon.s@example.org', date_of_birth: '1980-01-01', address_postcode: 'LS6 2QE' });
    await seed(org, 'kath1', { ...full, first_name: 'Katherine', last_name: 'Brown', email: 'kath@example.org', date_of_birth: '1975-05-05', address_postcode: 'LS2 2AA' });
    await seed(org, 'kath2', { ...full, first_name: 'Katharine', last_name: 'Brown', email: 'k.brown@example.org', date_of_birth: '1975-05-05', address_postcode: 'LS3 3AA' });
    // Namesakes with different dates of birth: never a pair.
    await seed(org, 'peter1', { ...full, first_name: 'Peter', last_name: 'Parker', email: 'peter1@example.org', date_of_birth: '1990-01-01', address_postcode: 'LS4 4AA' });
    await seed(org, 'peter2', { ...full, first_name: 'Peter', last_name: 'Parker', email: 'peter2@example.org', date_of_birth: '1991-02-02', address_postcode: 'LS5 5AA' });
    // A whole name in the first name field; two addresses in one email field; a record untouched for three years.
    await seed(org, 'whole', { ...full, first_name: 'Anna Maria Lopez', email: 'anna@example.org', address_postcode: 'LS7 7AA' });
    await seed(org, 'twoEmails', { ...full, first_name: 'Tom', last_name: 'Twomail', email: 'tom@example.org; tom.work@example.org', address_postcode: 'LS8 8AA' });
    await seed(org, 'stale', { ...full, first_name: 'Old', last_name: 'Record', email: 'old@example.org', address_postcode: 'LS9 9AA', updated_at: new Date(Date.now() - 3 * 365 * 86_400_000) });
    // Another organisation's look-alike of Mary: never in this organisation's results.
    await seed(other, 'foreign', { first_name: 'MARY', last_name: 'JONES', email: 'mary.jones@gmial.com' });
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  it('scores a scan by the formulas it shows, and lists checks with their contacts', async () => {
    const before = await mcpCall(mcp, 'people_get_data_quality_summary', {});
    expect(before).toMatchObject({ scanned: false, score: null });
    await mcpRefusal(mcp, 'people_list_data_quality_affected_contacts', { checkKey: 'name_case' }).then((error) => expect(error.code).toBe('not_found'));

    const job = await scan();
    expect(job.progress).toMatchObject({ done: 13, total: 13, percent: 100 });
    expect(job.result).toMatchObject({ contacts: 13 });
    // The job ran as its own Temporal workflow, whose progress query answers the same figures.
    const progress = await harness.temporal.workflow.getHandle(job.workflowId).query('dataQualityProgress');
    expect(progress).toEqual({ done: 13, total: 13, finished: true });

    const summary = await mcpCall(mcp, 'people_get_data_quality_summary', {});
    expect(summary.scanned).toBe(true);
    expect(summary.contacts).toBe(13);
    const category = (name: string) => summary.categories.find((c: any) => c.category === name);
    // Completeness by hand: Mary has no town-independent gaps; "whole" has no last name: 1 missing of 4 × 13.
    expect(category('completeness').figures).toEqual({ missingFields: 1, contacts: 13 });
    expect(category('completeness').score).toBe(Math.round(100 * (1 - 1 / 52)));
    expect(category('completeness').formula).toBe('100 × (1 − missing fields ÷ (4 × contacts)) = 100 × (1 − 1 ÷ 52)');
    // Duplicates: Mary and Mary (email), Alan and Ada (phone), the two Jonathans (confidence 70+); the Browns only if 70+.
    expect(category('duplicates').figures.duplicateContacts).toBeGreaterThanOrEqual(6);
    // Freshness: one stale record of 13.
    expect(category('freshness')).toMatchObject({ figures: { staleContacts: 1, contacts: 13 }, score: Math.round(100 * (1 - 1 / 13)) });
    // Contactability: the two-email contact's address is not valid, so only 12 of 13 can be reached.
    expect(category('contactability').figures).toEqual({ contactableContacts: 12, contacts: 13 });
    const mean = Math.round(summary.categories.reduce((sum: number, c: any) => sum + c.score, 0) / 6);
    expect(summary.score).toBe(mean);
    expect(summary.history).toHaveLength(1);

    const { checks } = await mcpCall(mcp, 'people_list_data_quality_checks', {});
    const affected = (key: string) => checks.find((c: any) => c.key === key).affected;
    expect(affected('name_case')).toBe(1);
    expect(affected('email_domain_typo')).toBe(2);
    expect(affected('phone_format')).toBe(2);
    expect(affected('invalid_email')).toBe(1);
    expect(affected('stale_record')).toBe(1);
    const nameCase = await mcpCall(mcp, 'people_list_data_quality_affected_contacts', { checkKey: 'name_case' });
    expect(nameCase.contacts.map((c: any) => c.contactId)).toEqual([ids.mary]);
    expect(JSON.stringify(nameCase)).not.toContain(ids.foreign);

    // The same reads as dashboard routes through people_invoke_api_read, answering what the tools answer.
    const routed = async (path: string, query?: Record<string, string>) => (await mcpCall(mcp, 'people_invoke_api_read', { path, ...(query ? { query } : {}) }));
    const routedSummary = await routed('/api/people/data-quality/summary');
    expect(routedSummary.route).toBe('GET /api/people/data-quality/summary');
    expect(routedSummary.result).toEqual(summary);
    expect((await routed('/api/people/data-quality/checks')).result).toEqual(await mcpCall(mcp, 'people_list_data_quality_checks', {}));
    expect((await routed('/api/people/data-quality/checks', { category: 'freshness' })).result.checks.map((c: any) => c.key))
      .toEqual(checks.filter((c: any) => c.category === 'freshness').map((c: any) => c.key));
    const routedContacts = await routed('/api/people/data-quality/checks/name_case/contacts', { limit: '10' });
    expect(routedContacts.route).toBe('GET /api/people/data-quality/checks/{checkKey}/contacts');
    expect(routedContacts.result).toEqual(nameCase);
    expect((await mcpRefusal(mcp, 'people_invoke_api_read', { path: '/api/people/data-quality/checks/no_such_check/contacts' })).code).toBe('validation_failed');
    // Another organisation has no scan: its route answers its own empty summary and never this one's contacts.
    const foreignRoute = await harness.invoke(other.apiKey, 'people_invoke_api_read', { path: '/api/people/data-quality/checks/name_case/contacts' });
    expect(foreignRoute.body.error?.code).toBe('not_found');
    expect((await harness.call(other.apiKey, 'people_invoke_api_read', { path: '/api/people/data-quality/summary' })).result).toMatchObject({ scanned: false, score: null });
    const openapi = await (await fetch(`${harness.url}/api/openapi.json`)).json() as { paths: Record<string, any> };
    for (const path of ['/api/people/data-quality/summary', '/api/people/data-quality/checks', '/api/people/data-quality/checks/{checkKey}/contacts']) {
      expect(Object.keys(openapi.paths[path] ?? {})).toEqual(['get']);
    }

    const dashboard = await mcpCall(mcp, 'people_fetch_data_quality_dashboard', {});
    expect(dashboard.summary.score).toBe(summary.score);
    expect(dashboard.duplicates.exactGroups).toBe(2);

    // Bad input changes nothing and says why; another organisation's job is missing here.
    const bad = await mcpRefusal(mcp, 'people_list_data_quality_affected_contacts', { checkKey: 'no_such_check' });
    expect(bad.code).toBe('validation_failed');
    const foreign = await harness.call(other.apiKey, 'people_run_data_quality_scan', {});
    const missing = await mcpRefusal(mcp, 'people_get_data_quality_job', { jobId: foreign.job.id });
    expect(missing.code).toBe('not_found');
  });

  it('journey: scan → preview → apply → undo, and nothing applies without the preview it names', async () => {
    const preview = await mcpCall(mcp, 'people_preview_data_quality_fix', { fix: 'name_case' });
    expect(preview.rows).toEqual([{
      contactId: ids.mary, name: 'MARY JONES',
      changes: [{ field: 'firstName', before: 'MARY', after: 'Mary' }, { field: 'lastName', before: 'JONES', after: 'Jones' }],
    }]);
    // A hash no preview gave applies nothing.
    const wrong = await mcpRefusal(mcp, 'people_apply_data_quality_fix', { fix: 'name_case', previewHash: 'a'.repeat(64) });
    expect(wrong.code).toBe('conflict');
    expect((await contactRow(ids.mary)).first_name).toBe('MARY');

    // Two applies of the same preview at once start one job.
    const [first, second] = await Promise.all([
      mcpCall(mcp, 'people_apply_data_quality_fix', { fix: 'name_case', previewHash: preview.previewHash }),
      mcpCall(mcp, 'people_apply_data_quality_fix', { fix: 'name_case', previewHash: preview.previewHash }),
    ]);
    expect(first.job.id).toBe(second.job.id);
    expect([first.alreadyApplied, second.alreadyApplied].sort()).toEqual([false, true]);
    const applied = await waitForJob(first.job.id);
    expect(applied).toMatchObject({ status: 'completed', progress: { done: 1, total: 1 }, result: { changed: 2, contactsChanged: 1, stale: 0 } });
    expect(applied.undoableUntil).not.toBeNull();
    expect(await contactRow(ids.mary)).toMatchObject({ first_name: 'Mary', last_name: 'Jones' });
    // The fix is on Mary's care timeline, naming the fields (not their values), once.
    const fixedEntries = async () => (await mcpCall(mcp, 'people_list_care_timeline', { contactId: ids.mary })).entries
      .filter((e: any) => e.kind === 'data_fixed' || e.kind === 'data_fix_undone');
    expect(await fixedEntries()).toEqual([expect.objectContaining({ kind: 'data_fixed', sourceKind: 'data_quality_job', summary: 'Data quality fix (name case) changed firstName, lastName', restricted: false })]);

    // Undo puts every field back.
    const undo = await mcpCall(mcp, 'people_trigger_data_quality_jobs', { jobs: [{ kind: 'undo_fix', fixJobId: applied.id }] });
    const undone = await waitForJob(undo.jobs[0].id);
    expect(undone.result).toMatchObject({ reverted: 2, skipped: 0 });
    expect(await contactRow(ids.mary)).toMatchObject({ first_name: 'MARY', last_name: 'JONES' });
    expect((await fixedEntries()).map((e: any) => [e.kind, e.summary])).toEqual([
      ['data_fix_undone', 'Undid a data quality fix: put back firstName, lastName'], ['data_fixed', 'Data quality fix (name case) changed firstName, lastName'],
    ]);
    const again = await mcpCall(mcp, 'people_trigger_data_quality_jobs', { jobs: [{ kind: 'undo_fix', fixJobId: applied.id }] });
    expect(again.jobs[0]).toMatchObject({ id: undone.id, alreadyRunning: true });
    expect((await mcpCall(mcp, 'people_get_data_quality_job', { jobId: applied.id })).job.undoableUntil).toBeNull();

    // Phones to E.164 in the organisation's country; a contact changed after the preview makes the apply refuse.
    const phones = await mcpCall(mcp, 'people_preview_data_quality_fix', { fix: 'phone_e164' });
    expect(phones.rows.map((r: any) => r.changes[0])).toEqual(expect.arrayContaining([
      { field: 'phone', before: '07700 900123', after: '+447700900123' }, { field: 'phone', before: '07700 900456', after: '+447700900456' },
    ]));
    await harness.pool.query(`UPDATE contacts SET phone = '07700 900999' WHERE id = $1`, [ids.phoneB]);
    const stale = await mcpRefusal(mcp, 'people_apply_data_quality_fix', { fix: 'phone_e164', previewHash: phones.previewHash });
    expect(stale.code).toBe('conflict');
    expect((await contactRow(ids.mary)).phone).toBe('07700 900123');
    await harness.pool.query(`UPDATE contacts SET phone = '07700 900456' WHERE id = $1`, [ids.phoneB]);

    // Postcodes: standard form and the town and county they imply, only where blank.
    const postcodes = await mcpCall(mcp, 'people_preview_data_quality_fix', { fix: 'uk_postcode', contactIds: [ids.mary] });
    expect(postcodes.rows[0].changes).toEqual([
      { field: 'addressPostcode', before: 'sw1a1aa', after: 'SW1A 1AA' },
      { field: 'addressCity', before: null, after: 'Westminster' },
      { field: 'addressCounty', before: null, after: 'London' },
      { field: 'addressCountry', before: null, after: 'England' },
    ]);
    // Emails: lower case and the gmial typo corrected.
    const emails = await mcpCall(mcp, 'people_preview_data_quality_fix', { fix: 'email_format' });
    expect(emails.rows.find((r: any) => r.contactId === ids.mary).changes).toEqual([{ field: 'email', before: 'Mary.Jones@GMIAL.com', after: 'mary.jones@gmail.com' }]);

    // Special fixes: a whole name split, a second email moved to its custom field; both undoable.
    const split = await mcpCall(mcp, 'people_preview_data_quality_special_fix', { fix: 'split_full_name' });
    expect(split.rows).toEqual([{ contactId: ids.whole, name: 'Anna Maria Lopez', changes: [
      { field: 'firstName', before: 'Anna Maria Lopez', after: 'Anna Maria' }, { field: 'lastName', before: null, after: 'Lopez' },
    ] }]);
    const moved = await mcpCall(mcp, 'people_preview_data_quality_special_fix', { fix: 'move_second_email' });
    const movedJob = await mcpCall(mcp, 'people_apply_data_quality_special_fix', { fix: 'move_second_email', previewHash: moved.previewHash });
    expect((await waitForJob(movedJob.job.id)).status).toBe('completed');
    const tom = await contactRow(ids.twoEmails);
    expect(tom.email).toBe('tom@example.org');
    expect(tom.custom_fields.second_email).toBe('tom.work@example.org');
    const undoMove = await mcpCall(mcp, 'people_trigger_data_quality_jobs', { jobs: [{ kind: 'undo_fix', fixJobId: movedJob.job.id }] });
    await waitForJob(undoMove.jobs[0].id);
    const back = await contactRow(ids.twoEmails);
    expect(back.email).toBe('tom@example.org; tom.work@example.org');
    expect(back.custom_fields.second_email).toBeUndefined();

    // A scan job cannot be undone.
    const { jobs } = await mcpCall(mcp, 'people_list_data_quality_jobs', { kind: 'scan' });
    const notAFix = await mcpRefusal(mcp, 'people_trigger_data_quality_jobs', { jobs: [{ kind: 'undo_fix', fixJobId: jobs[0].id }] });
    expect(notAFix.code).toBe('validation_failed');
  });

  it('journey: duplicates found with reasons, one pair dismissed for good (and restored), one merged once under two approvals at once', async () => {
    const groups = await mcpCall(mcp, 'people_list_data_quality_duplicates', {});
    const members = groups.items.map((g: any) => ({ kind: g.kind, ids: g.contacts.map((c: any) => c.contactId).sort() }));
    expect(members).toEqual(expect.arrayContaining([
      { kind: 'email', ids: [ids.mary, ids.mary2].sort() },
      { kind: 'phone', ids: [ids.phoneA, ids.phoneB].sort() },
    ]));
    expect(groups.items.every((g: any) => g.confidence === 100 && g.reason.length > 0)).toBe(true);

    const pairs = await mcpCall(mcp, 'people_list_data_quality_fuzzy_pairs', {});
    const pairOf = (a: string, b: string) => pairs.items.find((p: any) => p.contacts.map((c: any) => c.contactId).sort().join() === [a, b].sort().join());
    const jon = pairOf(ids.jon1, ids.jon2);
    const kath = pairOf(ids.kath1, ids.kath2);
    expect(jon.reasons.map((r: any) => r.kind)).toEqual(['name', 'date_of_birth', 'postcode']);
    expect(jon.confidence).toBe(Math.min(100, Math.round(70 * jon.reasons[0].similarity) + 30));
    expect(kath.reasons.map((r: any) => r.kind)).toEqual(['name', 'date_of_birth']);
    // Namesakes with different dates of birth are never a pair.
    expect(pairOf(ids.peter1, ids.peter2)).toBeUndefined();

    // Dismiss the Browns: gone from the list, still gone after another scan, counted, then restored.
    expect(await mcpCall(mcp, 'people_dismiss_data_quality_fuzzy_pairs', { pairIds: [kath.id], reason: 'Cousins' })).toEqual({ dismissed: 1, alreadyDismissed: 0 });
    expect(await mcpCall(mcp, 'people_dismiss_data_quality_fuzzy_pairs', { pairIds: [kath.id] })).toEqual({ dismissed: 0, alreadyDismissed: 1 });
    await scan();
    const afterRescan = await mcpCall(mcp, 'people_list_data_quality_fuzzy_pairs', {});
    expect(afterRescan.items.some((p: any) => p.contacts.some((c: any) => c.contactId === ids.kath1))).toBe(false);
    const withDismissed = await mcpCall(mcp, 'people_list_data_quality_fuzzy_pairs', { includeDismissed: true });
    expect(withDismissed.items.find((p: any) => p.contacts.some((c: any) => c.contactId === ids.kath1)).dismissed).toBe(true);
    const counts = await mcpCall(mcp, 'people_get_data_quality_dismissed_counts', {});
    expect(counts).toMatchObject({ groups: 0, pairs: 1 });
    expect(counts.dismissals[0]).toMatchObject({ kind: 'pair', reason: 'Cousins', contactIds: [ids.kath1, ids.kath2].sort() });
    const foreignRestore = await harness.invoke(other.apiKey, 'people_restore_data_quality_dismissals', { dismissalIds: [counts.dismissals[0].dismissalId] });
    expect(foreignRestore.body.error?.code).toBe('not_found');
    expect(await mcpCall(mcp, 'people_restore_data_quality_dismissals', { dismissalIds: [counts.dismissals[0].dismissalId] })).toEqual({ restored: 1 });
    expect((await mcpCall(mcp, 'people_list_data_quality_fuzzy_pairs', {})).items.some((p: any) => p.contacts.some((c: any) => c.contactId === ids.kath1))).toBe(true);

    // The Jonathans are in the review queue as a likely pair.
    const queue = await mcpCall(mcp, 'people_list_data_quality_queue', { kind: 'fuzzy_pair' });
    expect(queue.items.some((item: any) => item.contacts.map((c: any) => c.contactId).sort().join() === [ids.jon1, ids.jon2].sort().join())).toBe(true);

    // Merge the Jonathans: a contact outside the pair is refused; two proposals approved at once merge once.
    const current = (await mcpCall(mcp, 'people_list_data_quality_fuzzy_pairs', {})).items.find((p: any) => p.contacts.some((c: any) => c.contactId === ids.jon1));
    const args = { duplicateId: current.id, keepContactId: ids.jon1, mergeContactId: ids.jon2, actionSummary: 'Merge the two Jonathans' };
    const proposals = await Promise.all([1, 2].map(async () => (await harness.invoke(org.apiKey, 'people_merge_data_quality_via_dashboard', args)).body.error!.details!.proposalId as string));
    expect(new Set(proposals).size).toBe(2);
    await Promise.all(proposals.map((proposalId) => harness.invoke(org.apiKey, 'platform_approve_proposal', { proposalId })));
    const merges = async () => (await harness.pool.query('SELECT * FROM contact_merges WHERE org_id = $1 AND merged_contact_id = $2', [org.orgId, ids.jon2])).rows;
    for (let i = 0; i < 100 && (await merges()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 200));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await merges()).toHaveLength(1);
    expect((await contactRow(ids.jon2)).deleted_at).not.toBeNull();
    expect((await contactRow(ids.jon1)).deleted_at).toBeNull();

    const outsider = await harness.invoke(org.apiKey, 'people_merge_data_quality_via_dashboard', { ...args, mergeContactId: ids.peter1 });
    const outsiderProposal = outsider.body.error!.details!.proposalId as string;
    const decided = await harness.invoke(org.apiKey, 'platform_approve_proposal', { proposalId: outsiderProposal });
    expect(decided.body.error).toMatchObject({ code: 'validation_failed', details: { execution: { status: 'failed' } } });
    expect((await contactRow(ids.peter1)).deleted_at).toBeNull();

    // After the merge, the pair is no longer a duplicate and its queue item is resolved.
    const after = await mcpCall(mcp, 'people_list_data_quality_fuzzy_pairs', {});
    expect(after.items.find((p: any) => p.id === current.id).stillDuplicate).toBe(false);
    const open = await mcpCall(mcp, 'people_list_data_quality_queue', { kind: 'fuzzy_pair' });
    expect(open.items.some((item: any) => item.contacts.some((c: any) => c.contactId === ids.jon1))).toBe(false);

    // The review queue: a phone number nobody can read waits for a person; a decision is taken once.
    await seed(org, 'badPhone', { first_name: 'Bad', last_name: 'Phone', email: 'bad.phone@example.org', phone: 'ring the office', status: 'subscribed' });
    await scan();
    const waiting = (await mcpCall(mcp, 'people_list_data_quality_queue', { kind: 'unparseable_phone' })).items;
    const item = waiting.find((i: any) => i.contacts.some((c: any) => c.contactId === ids.badPhone));
    expect(item).toMatchObject({ status: 'open', contactCount: 1 });
    const reviewed = await mcpCall(mcp, 'people_review_data_quality_queue_item', { itemId: item.id, decision: 'resolve', note: 'Rang them, number corrected' });
    expect(reviewed.item).toMatchObject({ status: 'resolved', decision: 'resolve', note: 'Rang them, number corrected' });
    const twice = await mcpRefusal(mcp, 'people_review_data_quality_queue_item', { itemId: item.id, decision: 'dismiss' });
    expect(twice.code).toBe('conflict');
    const foreignItem = await harness.invoke(other.apiKey, 'people_review_data_quality_queue_item', { itemId: item.id, decision: 'dismiss' });
    expect(foreignItem.body.error?.code).toBe('not_found');
  });
  it('a dismissed exact group stays hidden after a rescan, is not counted, and can be restored', async () => {
    const samePhone = [ids.phoneA, ids.phoneB].sort();
    const phoneGroup = (items: any[]) => items.find((g: any) => g.kind === 'phone' && g.contacts.map((c: any) => c.contactId).sort().join() === samePhone.join());
    const group = phoneGroup((await mcpCall(mcp, 'people_list_data_quality_duplicates', {})).items);
    expect(group).toBeDefined();
    const groupsBefore = (await mcpCall(mcp, 'people_fetch_data_quality_dashboard', {})).duplicates.exactGroups;

    expect(await mcpCall(mcp, 'people_dismiss_data_quality_duplicate_groups', { groupIds: [group.id], reason: 'Family landline' })).toEqual({ dismissed: 1, alreadyDismissed: 0 });
    expect(phoneGroup((await mcpCall(mcp, 'people_list_data_quality_duplicates', {})).items)).toBeUndefined();

    // A new scan finds the same phone again under a new group id: the dismissal still hides it and it is not counted.
    await scan();
    const rescanned = await mcpCall(mcp, 'people_list_data_quality_duplicates', {});
    expect(phoneGroup(rescanned.items)).toBeUndefined();
    const withDismissed = phoneGroup((await mcpCall(mcp, 'people_list_data_quality_duplicates', { includeDismissed: true })).items);
    expect(withDismissed).toMatchObject({ dismissed: true });
    expect(withDismissed.id).not.toBe(group.id);
    expect((await mcpCall(mcp, 'people_fetch_data_quality_dashboard', {})).duplicates.exactGroups).toBe(groupsBefore - 1);
    const counts = await mcpCall(mcp, 'people_get_data_quality_dismissed_counts', {});
    expect(counts).toMatchObject({ groups: 1, pairs: 0 });
    const dismissal = counts.dismissals.find((d: any) => d.kind === 'group');
    expect(dismissal).toMatchObject({ matchedOn: 'phone', reason: 'Family landline' });
    // Dismissing the rescanned group again is a no-op: the dismissal names the phone, not the scan's group.
    expect(await mcpCall(mcp, 'people_dismiss_data_quality_duplicate_groups', { groupIds: [withDismissed.id] })).toEqual({ dismissed: 0, alreadyDismissed: 1 });

    expect(await mcpCall(mcp, 'people_restore_data_quality_dismissals', { dismissalIds: [dismissal.dismissalId] })).toEqual({ restored: 1 });
    expect(phoneGroup((await mcpCall(mcp, 'people_list_data_quality_duplicates', {})).items)).toMatchObject({ dismissed: false });
    await scan();
    expect(phoneGroup((await mcpCall(mcp, 'people_list_data_quality_duplicates', {})).items)).toMatchObject({ dismissed: false });
    expect((await mcpCall(mcp, 'people_fetch_data_quality_dashboard', {})).duplicates.exactGroups).toBe(groupsBefore);
    expect(await mcpCall(mcp, 'people_get_data_quality_dismissed_counts', {})).toMatchObject({ groups: 0 });
  });

  it('a fix older than 30 days cannot be undone: a clear refusal, and nothing changes', async () => {
    const preview = await mcpCall(mcp, 'people_preview_data_quality_fix', { fix: 'uk_postcode', contactIds: [ids.mary] });
    expect(preview.rows).toHaveLength(1);
    const { job } = await mcpCall(mcp, 'people_apply_data_quality_fix', { fix: 'uk_postcode', contactIds: [ids.mary], previewHash: preview.previewHash });
    const applied = await waitForJob(job.id);
    expect(applied.status).toBe('completed');
    expect(applied.undoableUntil).not.toBeNull();
    expect(await contactRow(ids.mary)).toMatchObject({ address_postcode: 'SW1A 1AA', address_city: 'Westminster' });

    // Thirty-one days pass.
    await harness.pool.query(`UPDATE dq_jobs SET finished_at = finished_at - interval '31 days' WHERE org_id = $1 AND id = $2`, [org.orgId, job.id]);
    expect((await mcpCall(mcp, 'people_get_data_quality_job', { jobId: job.id })).job.undoableUntil).toBeNull();
    const jobsBefore = (await harness.pool.query(`SELECT count(*)::int AS n FROM dq_jobs WHERE org_id = $1 AND kind = 'undo_fix'`, [org.orgId])).rows[0].n;
    const refused = await mcpRefusal(mcp, 'people_trigger_data_quality_jobs', { jobs: [{ kind: 'undo_fix', fixJobId: job.id }] });
    expect(refused.code).toBe('conflict');
    expect(refused.message).toBe('The fix finished more than 30 days ago and can no longer be undone');
    expect(refused.hint).toContain('people_update_contact');
    // No undo job was started, the fix is not marked undone, and Mary keeps the fixed postcode.
    expect((await harness.pool.query(`SELECT count(*)::int AS n FROM dq_jobs WHERE org_id = $1 AND kind = 'undo_fix'`, [org.orgId])).rows[0].n).toBe(jobsBefore);
    expect((await mcpCall(mcp, 'people_get_data_quality_job', { jobId: job.id })).job.result.undoneByJobId).toBeUndefined();
    expect(await contactRow(ids.mary)).toMatchObject({ address_postcode: 'SW1A 1AA', address_city: 'Westminster' });
  });

  it('a fix over many rows runs in steps with progress, and its undo too', async () => {
    const big = await harness.createOrg({ name: 'Big Data Chapel' });
    const bigMcp = await harness.mcpClient(big.apiKey, '?toolsets=people');
    try {
      await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email)
        SELECT gen_random_uuid(), $1, 'anna' || i, 'SMITH', 'anna' || i || '@example.org' FROM generate_series(1, 1200) AS i`, [big.orgId]);
      const preview = await mcpCall(bigMcp, 'people_preview_data_quality_fix', { fix: 'name_case', limit: 5 });
      expect(preview).toMatchObject({ rowCount: 1200, changeCount: 2400, truncated: true });
      expect(preview.rows).toHaveLength(5);
      const { job } = await mcpCall(bigMcp, 'people_apply_data_quality_fix', { fix: 'name_case', previewHash: preview.previewHash });
      const applied = await waitForJob(job.id, bigMcp);
      expect(applied).toMatchObject({ status: 'completed', progress: { done: 1200, total: 1200 }, result: { changed: 2400, contactsChanged: 1200, stale: 0 } });
      const cased = await harness.pool.query(`SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND first_name ~ '^Anna[0-9]+$' AND last_name = 'Smith'`, [big.orgId]);
      expect(cased.rows[0].n).toBe(1200);
      // The job's steps are in the trail, the system as actor, one per step (not per contact), progress running up to the total.
      const steps = await harness.pool.query(`SELECT actor_kind, (changes->'fields'->'done'->>'after')::int AS done, (changes->'fields'->'done'->>'before')::int AS before
        FROM audit_events WHERE org_id = $1 AND target_id = $2 AND action = 'people.dq_job.step' ORDER BY seq`, [big.orgId, job.id]);
      expect(steps.rows.length).toBeGreaterThan(1);
      expect(steps.rows.length).toBeLessThan(1200);
      expect(steps.rows.every((row: any) => row.actor_kind === 'system')).toBe(true);
      expect(steps.rows[steps.rows.length - 1].done).toBe(1200);
      expect(steps.rows.slice(1).every((row: any, i: number) => row.before === steps.rows[i].done)).toBe(true);
      // One contact changed by hand since: the undo leaves it and counts it as skipped.
      await harness.pool.query(`UPDATE contacts SET last_name = 'Smyth' WHERE org_id = $1 AND first_name = 'Anna7'`, [big.orgId]);
      const undo = await mcpCall(bigMcp, 'people_trigger_data_quality_jobs', { jobs: [{ kind: 'undo_fix', fixJobId: job.id }] });
      const undone = await waitForJob(undo.jobs[0].id, bigMcp);
      expect(undone).toMatchObject({ status: 'completed', progress: { done: 2400, total: 2400 }, result: { reverted: 2399, skipped: 1 } });
      const back = await harness.pool.query(`SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND first_name ~ '^anna[0-9]+$' AND last_name = 'SMITH'`, [big.orgId]);
      expect(back.rows[0].n).toBe(1199);
      expect((await harness.pool.query(`SELECT first_name, last_name FROM contacts WHERE org_id = $1 AND last_name = 'Smyth'`, [big.orgId])).rows).toEqual([{ first_name: 'anna7', last_name: 'Smyth' }]);
    } finally {
      await bigMcp.close();
    }
  });
});
