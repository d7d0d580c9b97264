import jsQR from 'jsqr';
import sharp from 'sharp';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * The people dashboard's views as tools, through MCP: layouts per user with validation, the CRM chart's
 * series, newcomer stall detection, a profile and its timeline with the privacy rule, saved searches,
 * partner shares (create, partner read, revoke, audit), a bulk operation run as a job with progress,
 * a member QR code decoded from its image, and the AI tools without a provider.
 */
describe('people dashboard parity', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let owner: McpClient;
  let staff: McpClient;
  let otherMcp: McpClient;
  let staffKey: string;
  const ids: Record<string, string> = {};

  const create = async (fields: Record<string, unknown>) => (await mcpCall(owner, 'people_create_contact', fields)).contact.id as string;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Parity Church' });
    other = await harness.createOrg({ name: 'Other Church' });
    owner = await harness.mcpClient(org.apiKey);
    staffKey = (await harness.createKey(org.orgId, ['people:read', 'people:write', 'platform:read'], 'staff')).apiKey;
    staff = await harness.mcpClient(staffKey);
    otherMcp = await harness.mcpClient(other.apiKey);
    ids.ruth = await create({ firstName: 'Ruth', lastName: 'Profile', email: 'ruth@example.org', phone: '07700 900001', membershipStatus: 'member' });
    ids.otherContact = (await mcpCall(otherMcp, 'people_create_contact', { firstName: 'Olga', lastName: 'Elsewhere' })).contact.id;
  });

  afterAll(async () => {
    for (const client of [owner, staff, otherMcp]) await client?.close();
    await harness?.close();
  });

  it('keeps each user\'s dashboard layouts apart and refuses widgets a board cannot show, naming each', async () => {
    const fresh = await mcpCall(owner, 'people_get_main_dashboard_layout', {});
    expect(fresh.layout.isDefault).toBe(true);
    expect(fresh.layout.availableWidgets.map((w: any) => w.widget)).toContain('crm_chart');
    const saved = await mcpCall(owner, 'people_set_main_dashboard_layout', { widgets: [{ widget: 'birthdays', size: 'large' }, { widget: 'crm_chart' }] });
    expect(saved.layout).toMatchObject({ isDefault: false, widgets: [{ widget: 'birthdays', size: 'large', hidden: false }, { widget: 'crm_chart', size: 'medium', hidden: false }] });
    expect((await mcpCall(owner, 'people_get_main_dashboard_layout', {})).layout.widgets.map((w: any) => w.widget)).toEqual(['birthdays', 'crm_chart']);
    // Another user of the same organisation still has the default; the CRM board is separate.
    expect((await mcpCall(staff, 'people_get_main_dashboard_layout', {})).layout.isDefault).toBe(true);
    expect((await mcpCall(owner, 'people_get_crm_dashboard_layout', {})).layout.isDefault).toBe(true);

    const refused = await mcpRefusal(owner, 'people_set_crm_dashboard_layout', { widgets: [{ widget: 'tags' }, { widget: 'birthdays' }, { widget: 'tags' }] });
    expect(refused.code).toBe('validation_failed');
    expect(refused.issues).toEqual([
      { path: 'widgets.1.widget', message: '"birthdays" is not a widget of the crm dashboard' },
      { path: 'widgets.2.widget', message: '"tags" appears more than once' },
    ]);
    expect(refused.hint).toContain('people_get_crm_dashboard_layout');
    expect((await mcpCall(owner, 'people_get_crm_dashboard_layout', {})).layout.isDefault).toBe(true);
    // An empty list goes back to the default.
    expect((await mcpCall(owner, 'people_set_main_dashboard_layout', { widgets: [] })).layout.isDefault).toBe(true);
  });

  it('gives the CRM chart\'s series in its structured output, seven days by default, and draws it in a widget', async () => {
    const chart = await mcpCall(owner, 'people_get_crm_analytics_chart', {});
    expect(chart.period.days).toBe(7);
    expect(chart.series.map((s: any) => s.key)).toEqual(['newContacts', 'firstVisits', 'activity', 'unsubscribes']);
    for (const series of chart.series) expect(series.points).toHaveLength(7);
    const added = chart.series.find((s: any) => s.key === 'newContacts');
    const today = new Date().toISOString().slice(0, 10);
    const contactsNow = (await mcpCall(owner, 'people_get_contact_stats', {})).stats.total;
    expect(added.points[6]).toEqual({ date: today, value: contactsNow });
    expect(added.total).toBe(contactsNow);
    const month = await mcpCall(owner, 'people_get_crm_analytics_chart', { days: 30 });
    expect(month.series[0].points).toHaveLength(30);
    expect((await mcpRefusal(owner, 'people_get_crm_analytics_chart', { days: 0 })).code).toBe('validation_failed');
    // The same view through the dashboard route and the invoke bridge.
    const routed = await harness.call(org.apiKey, 'people_invoke_api_read', { path: '/api/people/dashboard/chart', query: { days: '7' } });
    expect(routed.result.series[0].points).toEqual(added.points);
  });

  it('finds newcomers stuck in the journey and opens one follow-up each, never twice', async () => {
    ids.stuckFirst = await create({ firstName: 'Stella', lastName: 'Stuck', membershipStatus: 'first_time_visitor' });
    ids.stuckReturning = await create({ firstName: 'Rory', lastName: 'Returning', membershipStatus: 'returning_visitor' });
    ids.moving = await create({ firstName: 'Maisie', lastName: 'Moving', membershipStatus: 'first_time_visitor' });
    // Their journeys began 40 days ago with nothing since; Maisie's began today.
    await harness.pool.query(`UPDATE contacts SET first_visit_date = current_date - 40, created_at = now() - interval '40 days' WHERE id = ANY($1::uuid[])`, [[ids.stuckFirst, ids.stuckReturning]]);
    await harness.pool.query(`UPDATE timeline_entries SET occurred_at = now() - interval '40 days' WHERE contact_id = ANY($1::uuid[])`, [[ids.stuckFirst, ids.stuckReturning]]);

    const summary = await mcpCall(owner, 'people_get_integration_overview', {});
    expect(summary.stalledCount).toBe(2);
    expect(summary.stalled).toBeUndefined();
    expect(summary.funnel.find((s: any) => s.stage === 'first_time_visitor').contacts).toBe(2);
    const overview = await mcpCall(owner, 'people_get_integration_overview', { stalled: true });
    expect(overview.stalled.map((s: any) => s.contactId).sort()).toEqual([ids.stuckFirst, ids.stuckReturning].sort());
    const stella = overview.stalled.find((s: any) => s.contactId === ids.stuckFirst);
    expect(stella).toMatchObject({ stage: 'first_time_visitor', daysInStage: 40, openFollowUps: 1 });
    expect(stella.reason).toContain('40 days');

    // Stella already has her welcome task open; Rory has none, so one task is opened, and a second run opens none.
    const run = await mcpCall(owner, 'people_run_integration_stall_detection', {});
    expect(run.followUpsOpened).toBe(1);
    expect(run.openedFor).toEqual([ids.stuckReturning]);
    expect((await mcpCall(owner, 'people_run_integration_stall_detection', {})).followUpsOpened).toBe(0);
    const tasks = await mcpCall(owner, 'people_list_follow_up_tasks', { contactId: ids.stuckReturning });
    expect(tasks.tasks).toHaveLength(1);
    expect(tasks.tasks[0].title).toContain('Rory Returning');
    // Another organisation sees none of it.
    expect((await mcpCall(otherMcp, 'people_get_integration_overview', { stalled: true })).stalled).toEqual([]);
  });

  it('shows a profile, its summary and timeline, keeping restricted notes from a caller without people:safeguarding', async () => {
    await mcpCall(owner, 'people_add_note', { contactId: ids.ruth, content: 'Ruth helped with the harvest supper' });
    await mcpCall(owner, 'people_add_note', { contactId: ids.ruth, content: 'Private worry about Ruth\'s marriage', privacy: 'private' });
    await mcpCall(owner, 'people_add_contact_tag_api', { contactId: ids.ruth, tagName: 'Choir' });
    const group = (await mcpCall(owner, 'people_create_crm_group', { name: 'Welcome team' })).group;
    await mcpCall(owner, 'people_add_crm_group_member', { groupId: group.id, contactId: ids.ruth, role: 'Team leader' });

    const full = (await mcpCall(owner, 'people_get_contact_profile', { contactId: ids.ruth })).profile;
    expect(full.contact.tags).toEqual(['Choir']);
    expect(full.groups).toEqual([{ groupId: group.id, name: 'Welcome team', role: 'Team leader' }]);
    expect(full.recentActivity.map((a: any) => a.summary).join(' ')).toContain('Private worry');
    const limited = (await mcpCall(staff, 'people_get_contact_profile', { contactId: ids.ruth })).profile;
    expect(limited.includesRestricted).toBe(false);
    expect(JSON.stringify(limited)).not.toContain('Private worry');
    expect(limited.recentActivity.map((a: any) => a.summary).join(' ')).toContain('harvest supper');

    const ownerSummary = await mcpCall(owner, 'people_get_contact_summary', { contactId: ids.ruth });
    const staffSummary = await mcpCall(staff, 'people_get_contact_summary', { contactId: ids.ruth });
    expect(ownerSummary.notes).toBe(2);
    expect(staffSummary.notes).toBe(1);
    expect(staffSummary.summary).toContain('Ruth Profile: member');

    const timeline = await mcpCall(staff, 'people_get_contact_timeline', { contactId: ids.ruth });
    expect(timeline.sources.care).toBe(true);
    expect(timeline.entries.map((e: any) => e.summary).join(' ')).not.toContain('Private worry');
    expect(timeline.entries.map((e: any) => e.summary).join(' ')).toContain('harvest supper');
    const groupsTab = await mcpCall(owner, 'people_list_contact_groups_tab', { contactId: ids.ruth });
    expect(groupsTab.groups[0]).toMatchObject({ name: 'Welcome team', role: 'Team leader' });
    expect((await mcpCall(owner, 'people_list_departments', {})).departments[0].leaders[0].displayName).toBe('Ruth Profile');

    const updated = await mcpCall(owner, 'people_update_contact_profile', { contactId: ids.ruth, phone: '07700 900002', preferredName: 'Ru' });
    expect(updated.changedFields.sort()).toEqual(['phone', 'preferredName']);
    expect((await mcpRefusal(owner, 'people_update_contact_profile', { contactId: ids.ruth, status: 'unsubscribed' })).code).toBe('validation_failed');

    // Messages and attendance come from the channels and attendance modules (none yet for Ruth).
    expect(await mcpCall(owner, 'people_list_contact_emails', { contactId: ids.ruth })).toMatchObject({ available: true, address: 'ruth@example.org', messages: [] });
    expect(await mcpCall(owner, 'people_get_contact_attendance', { contactId: ids.ruth })).toMatchObject({ available: true, services: 0, visits: [] });
    // The profile is also a dashboard route, described in the OpenAPI document.
    const routed = await harness.call(staffKey, 'people_invoke_api_read', { path: `/api/people/contacts/${ids.ruth}/profile` });
    expect(routed.result.profile.contact.id).toBe(ids.ruth);
    expect(JSON.stringify(routed)).not.toContain('Private worry');
    const openapi = await (await fetch(`${harness.url}/api/openapi.json`)).json() as { paths: Record<string, unknown> };
    for (const path of ['/api/people/contacts/{contactId}/profile', '/api/people/dashboard/chart', '/api/people/partner-shares', '/api/people/bulk-operations/{operationId}']) expect(openapi.paths).toHaveProperty([path]);

    // Another organisation's contact is simply not there.
    for (const tool of ['people_get_contact_profile', 'people_get_contact_summary', 'people_get_contact_timeline', 'people_list_contact_groups_tab', 'people_list_contact_emails', 'people_get_contact_attendance']) {
      expect((await mcpRefusal(owner, tool, { contactId: ids.otherContact })).code).toBe('not_found');
    }
  });

  it('saves a CRM search, runs it against today\'s contacts, and deletes it through the dashboard route', async () => {
    const saved = await mcpCall(owner, 'people_save_crm_search', { name: 'Members in choir', filters: { membershipStatus: 'member', tag: 'Choir' } });
    expect(saved.replaced).toBe(false);
    expect((await mcpRefusal(owner, 'people_save_crm_search', { name: 'members in CHOIR', filters: { tag: 'Choir' } })).code).toBe('conflict');
    const run = await mcpCall(owner, 'people_execute_saved_crm_search', { name: 'Members in choir' });
    expect(run.contacts.map((c: any) => c.id)).toEqual([ids.ruth]);
    const config = await mcpCall(owner, 'people_list_crm_search_config', {});
    expect(config.savedSearches.map((s: any) => s.name)).toEqual(['Members in choir']);
    expect(config.filters.find((f: any) => f.field === 'tag').values).toContain('Choir');
    // Another organisation cannot run it.
    expect((await mcpRefusal(otherMcp, 'people_execute_saved_crm_search', { searchId: saved.search.id })).code).toBe('not_found');
    const removed = await harness.call(org.apiKey, 'people_invoke_api_write', { method: 'DELETE', path: `/api/people/searches/${saved.search.id}`, actionSummary: 'Remove the saved search' });
    expect(removed.result).toEqual({ id: saved.search.id, name: 'Members in choir' });
    expect((await mcpRefusal(owner, 'people_execute_saved_crm_search', { searchId: saved.search.id })).code).toBe('not_found');
    // A curated write through the bridge is sent to its tool.
    const curated = await harness.invoke(org.apiKey, 'people_invoke_api_write', { method: 'POST', path: '/api/people/searches', body: { name: 'x', filters: { tag: 'Choir' } }, actionSummary: 'Save' });
    expect(curated.status).toBe(405);
    expect(curated.body.error?.hint ?? curated.body.error?.message).toContain('people_save_crm_search');
  });

  it('shares a contact list read-only with a partner, records every read, and stops at once when revoked', async () => {
    const shared = await mcpCall(owner, 'people_create_partner_share', {
      partnerName: 'Town Food Bank', source: { kind: 'tag', name: 'Choir' }, fields: ['phone'], purpose: 'Volunteer rota for the Christmas food drive',
    });
    expect(shared.share).toMatchObject({ state: 'active', fields: ['name', 'phone'], source: { kind: 'tag', name: 'Choir' } });
    expect(shared.token).toMatch(/^psh_/);
    const staffView = await mcpCall(owner, 'people_list_partner_contacts', { shareId: shared.share.id });
    expect(staffView.contacts).toEqual([{ name: 'Ru Profile', phone: '07700 900002' }]);

    const partnerRead = (token: string) => fetch(`${harness.url}/people/partner-share`, { headers: { authorization: `Bearer ${token}` } });
    const read = await partnerRead(shared.token);
    expect(read.status).toBe(200);
    const body = await read.json() as any;
    expect(body).toMatchObject({ readOnly: true, sharedBy: 'Parity Church', list: 'Choir', contacts: [{ name: 'Ru Profile', phone: '07700 900002' }] });
    expect(JSON.stringify(body)).not.toContain('ruth@example.org');
    // A token differing in its last character (never the same character: base64url's last of 43 is often "A").
    const tampered = `${shared.token.slice(0, -1)}${shared.token.endsWith('E') ? 'I' : 'E'}`;
    expect((await partnerRead(tampered)).status).toBe(401);
    expect((await mcpCall(owner, 'people_list_partner_shares', {})).shares[0]).toMatchObject({ id: shared.share.id, partnerViews: 1 });
    // Another organisation can neither see nor revoke it.
    expect((await mcpCall(otherMcp, 'people_list_partner_shares', { state: 'all' })).shares).toEqual([]);
    expect((await mcpRefusal(otherMcp, 'people_revoke_partner_share', { shareId: shared.share.id })).code).toBe('not_found');

    const revoked = await mcpCall(owner, 'people_revoke_partner_share', { shareId: shared.share.id, reason: 'Food drive over' });
    expect(revoked.share.state).toBe('revoked');
    expect((await partnerRead(shared.token)).status).toBe(401);
    expect((await mcpCall(owner, 'people_list_partner_contacts', { shareId: shared.share.id })).contacts).toEqual([]);
    expect((await mcpCall(owner, 'people_list_partner_shares', {})).shares).toEqual([]);
    const audited = await mcpCall(owner, 'people_list_partner_shares', { state: 'all', auditShareId: shared.share.id });
    expect(audited.audit.map((e: any) => e.action)).toEqual(['created', 'viewed', 'revoked']);
    expect(audited.audit[2].detail).toBe('Food drive over');
    expect((await mcpRefusal(owner, 'people_revoke_partner_share', { shareId: shared.share.id })).code).toBe('conflict');
  });

  it('runs a previewed bulk operation as a job whose progress reaches done = total', async () => {
    const csv = ['firstName,lastName', ...Array.from({ length: 60 }, (_, i) => `Bulk,Person${String(i).padStart(2, '0')}`)].join('\n');
    expect((await mcpCall(owner, 'people_import_contacts', { csv, mode: 'commit' })).committed).toBe(true);
    const listed = await mcpCall(owner, 'people_search_contacts', { query: 'Bulk', limit: 100 });
    const bulkIds = listed.contacts.map((c: any) => c.id);
    expect(bulkIds).toHaveLength(60);
    await mcpCall(owner, 'people_add_contact_tags', { contactId: bulkIds[0], tags: ['Harvest 2026'] });

    // Running without a preview is refused; a preview changes nothing.
    expect((await mcpRefusal(owner, 'people_run_contacts_bulk_operation', { mode: 'run' })).code).toBe('validation_failed');
    const preview = await mcpCall(owner, 'people_run_contacts_bulk_operation', {
      mode: 'preview', operation: { kind: 'add_tags', tags: ['Harvest 2026'] }, selection: { contactIds: bulkIds },
    });
    expect(preview).toMatchObject({ selected: 60, wouldChange: 59, unchanged: 1 });
    expect(preview.operation.status).toBe('previewed');
    expect(preview.sample).toHaveLength(20);
    expect((await mcpCall(owner, 'people_list_tags', {})).tags.find((t: any) => t.name === 'Harvest 2026').contactCount).toBe(1);
    // Another organisation's id in the selection is a missing contact.
    expect((await mcpRefusal(owner, 'people_run_contacts_bulk_operation', {
      mode: 'preview', operation: { kind: 'add_tags', tags: ['X'] }, selection: { contactIds: [ids.otherContact] },
    })).code).toBe('not_found');
    expect((await mcpRefusal(otherMcp, 'people_run_contacts_bulk_operation', { mode: 'run', previewId: preview.previewId })).code).toBe('not_found');

    const started = await mcpCall(owner, 'people_run_contacts_bulk_operation', { mode: 'run', previewId: preview.previewId });
    expect(started.operation).toMatchObject({ status: 'running', total: 60 });
    let operation = started.operation;
    const seen: number[] = [];
    for (let attempt = 0; attempt < 120 && operation.status === 'running'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      operation = (await mcpCall(owner, 'people_get_contacts_bulk_operation', { operationId: started.operation.id })).operation;
      seen.push(operation.done);
    }
    expect(operation).toMatchObject({ status: 'completed', done: 60, total: 60, changed: 59, skipped: 1, percent: 100 });
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    // Each batch the job applied is in the trail, the system as actor; together they name the 59 people changed, by id.
    const batches = await harness.pool.query(`SELECT actor_kind, changes->'fields'->'applied'->>'after' AS applied, contact_ids FROM audit_events
      WHERE org_id = $1 AND target_id = $2 AND action = 'people.bulk_operation.apply' ORDER BY seq`, [org.orgId, started.operation.id]);
    expect(batches.rows.length).toBeGreaterThanOrEqual(1);
    expect(batches.rows.every((row: any) => row.actor_kind === 'system')).toBe(true);
    expect(batches.rows.reduce((sum: number, row: any) => sum + Number(row.applied), 0)).toBe(59);
    expect(new Set(batches.rows.flatMap((row: any) => row.contact_ids))).toEqual(new Set(bulkIds.slice(1)));
    expect((await mcpCall(owner, 'people_list_tags', {})).tags.find((t: any) => t.name === 'Harvest 2026').contactCount).toBe(60);
    // A preview runs once, even when asked twice at the same moment.
    expect((await mcpRefusal(owner, 'people_run_contacts_bulk_operation', { mode: 'run', previewId: preview.previewId })).code).toBe('conflict');
    const again = await mcpCall(owner, 'people_run_contacts_bulk_operation', {
      mode: 'preview', operation: { kind: 'remove_tags', tags: ['Harvest 2026'] }, selection: { tag: 'Harvest 2026' },
    });
    expect(again.selected).toBe(60);
    const racing = await Promise.all([1, 2, 3].map(() => owner.callTool({ name: 'people_run_contacts_bulk_operation', arguments: { mode: 'run', previewId: again.previewId } })));
    expect(racing.filter((result) => !result.isError)).toHaveLength(1);
    expect(racing.filter((result) => result.isError).map((result) => JSON.parse((result.content as any)[0].text).error.code)).toEqual(['conflict', 'conflict']);
    // The job is a Temporal workflow, visible as such.
    const handle = harness.temporal.workflow.getHandle(`people-bulk-${org.orgId}-${started.operation.id}`);
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  });

  it('refuses a bulk operation over 1,000 contacts with a clear error and changes nothing; 1,000 is taken', async () => {
    const big = await harness.createOrg({ name: 'Bulk Cap Church' });
    const bigMcp = await harness.mcpClient(big.apiKey);
    try {
      await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name)
        SELECT gen_random_uuid(), $1, 'Many', 'Person' || i FROM generate_series(1, 1001) AS i`, [big.orgId]);
      const all: string[] = (await harness.pool.query('SELECT id FROM contacts WHERE org_id = $1 ORDER BY created_at, id', [big.orgId])).rows.map((r: any) => r.id);
      expect(all).toHaveLength(1001);
      // Everyone carries one tag, so a tag selection holds 1,001.
      await mcpCall(bigMcp, 'people_add_contact_tags', { contactId: all[0], tags: ['Everyone'] });
      await harness.pool.query(`INSERT INTO contact_tags (org_id, contact_id, tag_id)
        SELECT c.org_id, c.id, t.id FROM contacts c JOIN tags t ON t.org_id = c.org_id AND t.name = 'Everyone' WHERE c.org_id = $1 ON CONFLICT DO NOTHING`, [big.orgId]);
      const tagCount = async (name: string) => (await mcpCall(bigMcp, 'people_list_tags', {})).tags.find((t: any) => t.name === name)?.contactCount ?? 0;
      expect(await tagCount('Everyone')).toBe(1001);
      const operations = async () => (await harness.pool.query('SELECT count(*)::int AS n FROM people_bulk_operations WHERE org_id = $1', [big.orgId])).rows[0].n;

      // 1,001 ids: refused by the input's own limit, naming the field.
      const byIds = await mcpRefusal(bigMcp, 'people_run_contacts_bulk_operation', {
        mode: 'preview', operation: { kind: 'add_tags', tags: ['Too many'] }, selection: { contactIds: all },
      });
      expect(byIds.code).toBe('validation_failed');
      expect(byIds.issues.map((i: any) => i.path)).toContain('selection.contactIds');
      expect(JSON.stringify(byIds.issues)).toContain('1000');
      // A tag holding 1,001: refused when the selection is counted, saying the limit and what to do.
      const byTag = await mcpRefusal(bigMcp, 'people_run_contacts_bulk_operation', {
        mode: 'preview', operation: { kind: 'set_membership_status', membershipStatus: 'member' }, selection: { tag: 'Everyone' },
      });
      expect(byTag.code).toBe('validation_failed');
      expect(byTag.message).toBe('The selection holds more than 1000 contacts; one bulk operation takes at most that many');
      expect(byTag.hint).toContain('Narrow the selection');
      // Nothing was recorded or changed.
      expect(await operations()).toBe(0);
      expect(await tagCount('Too many')).toBe(0);
      expect((await harness.pool.query(`SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND membership_status = 'member'`, [big.orgId])).rows[0].n).toBe(0);

      // Exactly 1,000 is within the cap.
      const within = await mcpCall(bigMcp, 'people_run_contacts_bulk_operation', {
        mode: 'preview', operation: { kind: 'add_tags', tags: ['Thousand'] }, selection: { contactIds: all.slice(0, 1000) },
      });
      expect(within).toMatchObject({ selected: 1000, wouldChange: 1000, unchanged: 0 });
      expect(await operations()).toBe(1);
    } finally {
      await bigMcp.close();
    }
  });

  it('draws a member QR code that decodes to a signed token, valid until revoked', async () => {
    const qr = await mcpCall(owner, 'people_generate_member_qr', { contactId: ids.ruth });
    expect(qr.mimeType).toBe('image/png');
    const { data, info } = await sharp(Buffer.from(qr.imageBase64, 'base64')).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const decoded = jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height);
    expect(decoded?.data).toBe(qr.token);
    expect(await mcpCall(staff, 'people_verify_member_qr', { token: decoded!.data })).toEqual({ valid: true, reason: null, contactId: ids.ruth, displayName: 'Ru Profile' });
    // Tampered, foreign and revoked codes are not valid.
    const [prefix, id, mac] = qr.token.split('.');
    expect((await mcpCall(owner, 'people_verify_member_qr', { token: `${prefix}.${id}.${mac.slice(0, -2)}${mac.endsWith('xx') ? 'yy' : 'xx'}` })).reason).toBe('bad_signature');
    expect((await mcpCall(otherMcp, 'people_verify_member_qr', { token: qr.token })).reason).toBe('unknown');
    expect((await mcpCall(owner, 'people_get_contact_profile', { contactId: ids.ruth })).profile.hasActiveMemberQr).toBe(true);
    const second = await mcpCall(owner, 'people_generate_member_qr', { contactId: ids.ruth });
    expect(second.replacedEarlierCodes).toBe(1);
    expect((await mcpCall(owner, 'people_verify_member_qr', { token: qr.token })).reason).toBe('revoked');
    await mcpCall(owner, 'people_revoke_member_qr', { contactId: ids.ruth });
    expect((await mcpCall(owner, 'people_verify_member_qr', { token: second.token })).reason).toBe('revoked');
    expect((await mcpRefusal(owner, 'people_generate_member_qr', { contactId: ids.otherContact })).code).toBe('not_found');
  });

  it('answers not_configured from the AI tools without a provider, naming the setting and the tool to use instead', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['people_list_dashboard_ai_insights', {}, 'people_get_smart_discoveries'],
      ['people_generate_dashboard_ai_insights', {}, 'people_get_smart_discoveries'],
      ['people_find_similar_contacts_ai', { contactId: ids.ruth }, 'people_search_contacts'],
    ];
    for (const [tool, args, neighbour] of cases) {
      const error = await mcpRefusal(owner, tool, args);
      expect(error.code).toBe('not_configured');
      expect(error.message).toContain('MEDIA_AI_API_URL');
      expect(error.hint).toContain(neighbour);
    }
    // The neighbour answers.
    const discoveries = await mcpCall(owner, 'people_get_smart_discoveries', {});
    const byKind = Object.fromEntries(discoveries.discoveries.map((d: any) => [d.kind, d]));
    // The 60 imported people, Stella, Rory and Maisie have no email, phone or address; the 60 have no stage.
    expect(byKind.unreachable).toMatchObject({ count: 63, tool: 'people_update_contact' });
    expect(byKind.unreachable.sample).toHaveLength(5);
    expect(byKind.no_stage.count).toBe(60);
    // Every visitor has a follow-up by now (welcome tasks and stall detection's).
    expect(byKind.visitors_without_follow_up).toBeUndefined();
  });
});
