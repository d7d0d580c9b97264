import { randomUUID } from 'node:crypto';
import { CallToolResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { MODULES } from '../../modules';
import { allTools, findTool } from '../../modules/catalogue';
import { Harness, type TestOrg } from '../helpers/harness';
import { loadIsolationParts } from './isolation/part';

/**
 * Tenancy, tool by tool: every tool that takes an id must appear in ISOLATION below, and each
 * entry is run with organisation B's key against organisation A's records. A tool added to the
 * catalogue with an id argument and no entry fails the completeness test, so isolation grows with
 * the catalogue instead of depending on someone remembering it.
 */

/** A's records, one of each kind a tool can name, and B's own where a probe mixes the two. */
interface Ids {
  contact: string; relative: string; note: string; tag: string; category: string; segment: string; group: string;
  task: string; outreach: string; proposal: string; automation: string;
  /** Already decided: a refusal must not differ from a missing id by saying so. */
  declinedOutreach: string; rejectedProposal: string;
  bContact: string; bSegment: string; bGroup: string; bTag: string;
  /** Giving: A's fund, committed donation, pledge campaign and pledge, recurring gift; B's own campaign. */
  fund: string; donation: string; campaign: string; pledge: string; recurringGift: string; bFund: string; bCampaign: string;
  /** Giving core: A's open batch (with one gift) and a giver's details. */
  openBatch: string; giver: string;
  /** Gift Aid: A's (oral, unconfirmed) declaration, validated claim and giving statement. */
  declaration: string; claim: string; statement: string; statementRun: string;
  /** Team: A's pending invite and A's owner. */
  invite: string; member: string;
}

/**
 * not_found: refused exactly as a missing id would be. no_leak: a list filtered by A's id, which
 * answers (empty) rather than refusing. Either way nothing of A's appears and A is unchanged.
 */
type Outcome = 'not_found' | 'no_leak';
interface Probe { label?: string; args: (ids: Ids) => Record<string, unknown>; outcome?: Outcome }
/** A tool is either probed, or names an id that no organisation owns (and says why). */
type Entry = Probe[] | { notOwned: string };

const ISOLATION: Record<string, Entry> = {
  platform_get_proposal: [{ args: (i) => ({ proposalId: i.proposal }) }],
  platform_approve_proposal: [{ args: (i) => ({ proposalId: i.proposal }) }, { label: 'decided', args: (i) => ({ proposalId: i.rejectedProposal }) }],
  platform_reject_proposal: [{ args: (i) => ({ proposalId: i.proposal }) }, { label: 'decided', args: (i) => ({ proposalId: i.rejectedProposal }) }],
  people_get_contact: [{ args: (i) => ({ contactId: i.contact }) }],
  people_update_contact: [{ args: (i) => ({ contactId: i.contact, firstName: 'Mallory' }) }],
  people_delete_contact: [{ args: (i) => ({ contactId: i.contact }) }, { label: 'permanent', args: (i) => ({ contactId: i.contact, permanent: true }) }],
  people_add_note: [{ args: (i) => ({ contactId: i.contact, content: 'Planted by B' }) }],
  people_list_notes: [{ args: (i) => ({ contactId: i.contact }) }],
  people_list_care_timeline: [{ args: (i) => ({ contactId: i.contact }) }],
  people_bulk_opt_in_whatsapp: [{ args: (i) => ({ contactIds: [i.contact] }), outcome: 'no_leak' }],
  people_add_family_relationship: [
    { label: 'A\'s contact', args: (i) => ({ contactId: i.contact, relatedContactId: i.bContact, relationship: 'sister' }) },
    { label: 'A\'s relative', args: (i) => ({ contactId: i.bContact, relatedContactId: i.contact, relationship: 'sister' }) },
  ],
  people_remove_family_relationship: [{ args: (i) => ({ contactId: i.contact, relatedContactId: i.relative }) }],
  people_list_family: [{ args: (i) => ({ contactId: i.contact }) }],
  people_list_household: [{ args: (i) => ({ contactId: i.contact }) }],
  people_update_note: [{ args: (i) => ({ noteId: i.note, content: 'Changed by B' }) }],
  people_remove_note: [{ args: (i) => ({ noteId: i.note }) }],
  people_complete_note_followup: [{ args: (i) => ({ noteId: i.note }) }],
  people_list_tags: [{ args: (i) => ({ categoryId: i.category }), outcome: 'no_leak' }],
  people_add_contact_tags: [{ args: (i) => ({ contactId: i.contact, tags: ['planted'] }) }],
  people_remove_contact_tags: [{ args: (i) => ({ contactId: i.contact, tags: ['Isolation tag'] }) }],
  people_delete_crm_tag: [{ args: (i) => ({ tagId: i.tag }) }],
  people_create_crm_tag: [{ args: (i) => ({ name: 'In A\'s category', categoryId: i.category }) }],
  people_update_crm_tag: [
    { label: 'A\'s tag', args: (i) => ({ tagId: i.tag, name: 'Renamed by B' }) },
    { label: 'into A\'s category', args: (i) => ({ tagId: i.bTag, categoryId: i.category }) },
  ],
  people_update_tag_category: [{ args: (i) => ({ categoryId: i.category, name: 'Renamed by B' }) }],
  people_get_segment_api: [{ args: (i) => ({ segmentId: i.segment }) }],
  people_create_segment_from_template: { notOwned: 'templateId names one of the built-in templates every organisation shares' },
  people_update_segment: [{ args: (i) => ({ segmentId: i.segment, name: 'Renamed by B' }) }],
  people_preview_segment_api: [{ args: (i) => ({ segmentId: i.segment }) }],
  people_refresh_segment: [{ args: (i) => ({ segmentId: i.segment }) }],
  people_list_segment_contacts_api: [{ args: (i) => ({ segmentId: i.segment }) }],
  people_add_contact_to_segment_api: [
    { label: 'A\'s segment', args: (i) => ({ segmentId: i.segment, contactId: i.bContact }) },
    { label: 'A\'s contact', args: (i) => ({ segmentId: i.bSegment, contactId: i.contact }) },
  ],
  people_list_crm_group_members: [{ args: (i) => ({ groupId: i.group }) }],
  people_update_crm_group: [{ args: (i) => ({ groupId: i.group, name: 'Renamed by B' }) }],
  people_add_crm_group_member: [
    { label: 'A\'s group', args: (i) => ({ groupId: i.group, contactId: i.bContact }) },
    { label: 'A\'s contact', args: (i) => ({ groupId: i.bGroup, contactId: i.contact }) },
  ],
  people_remove_crm_group_member: [{ args: (i) => ({ groupId: i.group, contactId: i.contact }) }],
  people_delete_crm_group: [{ args: (i) => ({ groupId: i.group }) }],
  people_list_follow_up_tasks: [{ args: (i) => ({ contactId: i.contact }), outcome: 'no_leak' }],
  people_complete_follow_up_task: [{ args: (i) => ({ taskId: i.task }) }],
  people_create_outreach: [{ args: (i) => ({ contactId: i.contact, channel: 'email', subject: 'From B', body: 'Planted by B' }) }],
  people_list_pending_outreach: [{ args: (i) => ({ contactId: i.contact }), outcome: 'no_leak' }, { label: 'unfiltered', args: () => ({}), outcome: 'no_leak' }],
  people_get_outreach_item: [{ args: (i) => ({ outreachId: i.outreach }) }],
  people_edit_outreach: [{ args: (i) => ({ outreachId: i.outreach, body: 'Rewritten by B' }) }, { label: 'decided', args: (i) => ({ outreachId: i.declinedOutreach, body: 'Rewritten by B' }) }],
  people_approve_outreach: [{ args: (i) => ({ outreachId: i.outreach, contentVersion: 1 }) }, { label: 'decided', args: (i) => ({ outreachId: i.declinedOutreach, contentVersion: 1 }) }],
  people_decline_outreach: [{ args: (i) => ({ outreachId: i.outreach }) }, { label: 'decided', args: (i) => ({ outreachId: i.declinedOutreach }) }],
  people_cancel_outreach: [{ args: (i) => ({ outreachId: i.outreach }) }, { label: 'decided', args: (i) => ({ outreachId: i.declinedOutreach }) }],
  people_merge_data_quality_contacts: [{ args: (i) => ({ keepContactId: i.contact, mergeContactId: i.relative }) }],
  people_set_pastoral_automation: [{ args: (i) => ({ automationId: i.automation, enabled: false }) }],
  people_remove_pastoral_automation: [{ args: (i) => ({ automationId: i.automation }) }],
  people_duplicate_pastoral_automation: [{ args: (i) => ({ automationId: i.automation }) }],
  people_get_pastoral_automation: [{ args: (i) => ({ automationId: i.automation }) }],
  people_run_pastoral_generation: [{ args: (i) => ({ automationId: i.automation }) }],
  giving_refund_donation: [{ args: (i) => ({ donationId: i.donation, reason: 'Planted by B' }) }],
  giving_list_refunds: [{ args: (i) => ({ donationId: i.donation }), outcome: 'no_leak' }, { label: 'fund', args: (i) => ({ fundId: i.fund }), outcome: 'no_leak' }],
  giving_create_pledge_campaign: [{ args: (i) => ({ name: 'B appeal on A\'s fund', fundId: i.fund }) }],
  giving_close_pledge_campaign: [{ args: (i) => ({ campaignId: i.campaign }) }],
  giving_create_pledge: [
    { label: 'A\'s campaign', args: (i) => ({ campaignId: i.campaign, contactId: i.bContact, amount: 100 }) },
    { label: 'A\'s contact', args: (i) => ({ campaignId: i.bCampaign, contactId: i.contact, amount: 100 }) },
  ],
  giving_list_pledges: [{ args: (i) => ({ campaignId: i.campaign }), outcome: 'no_leak' }, { label: 'contact', args: (i) => ({ contactId: i.contact }), outcome: 'no_leak' }],
  giving_cancel_pledge: [{ args: (i) => ({ pledgeId: i.pledge }) }],
  giving_get_pledge_progress: [{ args: (i) => ({ pledgeId: i.pledge }) }, { label: 'campaign', args: (i) => ({ campaignId: i.campaign }) }],
  giving_create_recurring_gift: [
    { label: 'A\'s fund', args: (i) => ({ contactId: i.bContact, fundId: i.fund, amount: 100, method: 'card', frequency: 'monthly' }) },
    { label: 'A\'s contact', args: (i) => ({ contactId: i.contact, fundId: i.bFund, amount: 100, method: 'card', frequency: 'monthly' }) },
  ],
  giving_list_recurring_gifts: [{ args: (i) => ({ contactId: i.contact }), outcome: 'no_leak' }, { label: 'fund', args: (i) => ({ fundId: i.fund }), outcome: 'no_leak' }],
  giving_get_recurring_gift: [{ args: (i) => ({ recurringGiftId: i.recurringGift }) }],
  giving_update_recurring_gift: [
    { label: 'A\'s gift', args: (i) => ({ recurringGiftId: i.recurringGift, amount: 1 }) },
    { label: 'A\'s fund', args: (i) => ({ recurringGiftId: i.recurringGift, fundId: i.bFund }) },
  ],
  giving_pause_recurring_gift: [{ args: (i) => ({ recurringGiftId: i.recurringGift }) }],
  giving_resume_recurring_gift: [{ args: (i) => ({ recurringGiftId: i.recurringGift }) }],
  giving_cancel_recurring_gift: [{ args: (i) => ({ recurringGiftId: i.recurringGift }) }],
  giving_update_fund: [{ args: (i) => ({ fundId: i.fund, name: 'Renamed by B' }) }],
  giving_archive_fund: [{ args: (i) => ({ fundId: i.fund }) }],
  giving_get_giver: [{ args: (i) => ({ giverId: i.giver }) }, { label: 'contact', args: (i) => ({ contactId: i.contact }) }],
  giving_upsert_giver: [
    { args: (i) => ({ contactId: i.contact, title: 'Mx' }) },
    { label: 'joint giver', args: (i) => ({ contactId: i.bContact, jointContactId: i.contact }) },
  ],
  giving_get_batch: [{ args: (i) => ({ batchId: i.openBatch }) }],
  giving_add_batch_donations: [{ args: (i) => ({ batchId: i.openBatch, donations: [{ amount: 100, method: 'cash', receivedOn: '2026-01-04' }] }) }],
  giving_record_donation: [
    { label: 'batch', args: (i) => ({ batchId: i.openBatch, amount: 100, method: 'cash', receivedOn: '2026-01-04' }) },
    { label: 'fund', args: (i) => ({ fundId: i.fund, amount: 100, method: 'cash', receivedOn: '2026-01-04' }) },
    { label: 'giver', args: (i) => ({ contactId: i.contact, amount: 100, method: 'cash', receivedOn: '2026-01-04' }) },
    { label: 'pledge', args: (i) => ({ pledgeId: i.pledge, amount: 100, method: 'cash', receivedOn: '2026-01-04' }) },
  ],
  giving_remove_batch_donation: [{ args: (i) => ({ donationId: i.donation }) }],
  giving_adjust_donation: [{ args: (i) => ({ donationId: i.donation, amount: -100, reason: 'Planted by B' }) }],
  giving_commit_batch: [{ args: (i) => ({ batchId: i.openBatch }) }],
  giving_list_donations: [
    { args: (i) => ({ batchId: i.openBatch }), outcome: 'no_leak' }, { label: 'fund', args: (i) => ({ fundId: i.fund }), outcome: 'no_leak' },
    { label: 'giver', args: (i) => ({ contactId: i.contact }), outcome: 'no_leak' },
  ],
  giving_get_donation: [{ args: (i) => ({ donationId: i.donation }) }],
  giving_import_donations: [
    { label: 'batch', args: (i) => ({ batchId: i.openBatch, csv: 'date,amount\n2026-01-04,1.00', source: 'bank', mode: 'commit' }) },
    { label: 'fund', args: (i) => ({ fundId: i.fund, csv: 'date,amount\n2026-01-04,1.00', source: 'bank', mode: 'commit' }) },
  ],
  giving_summary: [{ args: (i) => ({ fundId: i.fund }) }],
  giving_record_gift_aid_declaration: [
    { args: (i) => ({ contactId: i.contact, scope: 'future_only', method: 'written', madeOn: '2026-01-04' }) },
    { label: 'A\'s gift', args: (i) => ({ contactId: i.bContact, scope: 'single_gift', method: 'written', madeOn: '2026-01-04', donationId: i.donation }) },
  ],
  giving_cancel_gift_aid_declaration: [{ args: (i) => ({ declarationId: i.declaration, reason: 'Planted by B' }) }],
  giving_confirm_oral_declaration: [{ args: (i) => ({ declarationId: i.declaration, sentOn: '2026-01-05' }) }],
  giving_list_gift_aid_declarations: [{ args: (i) => ({ contactId: i.contact }) }],
  giving_get_gift_aid_claim: [{ args: (i) => ({ claimId: i.claim }) }],
  giving_cancel_gift_aid_claim: [{ args: (i) => ({ claimId: i.claim, reason: 'Planted by B' }) }],
  giving_submit_gift_aid_claim: [{ args: (i) => ({ claimId: i.claim, charityReference: 'AB12345' }) }],
  giving_record_claim_outcome: [{ args: (i) => ({ claimId: i.claim, outcome: 'rejected', reason: 'Planted by B' }) }],
  giving_record_gasds_collection: [{ args: (i) => ({ collectedOn: new Date().toISOString().slice(0, 10), method: 'cash', entries: [{ amount: 100 }], donationId: i.donation }) }],
  giving_generate_statements: [{ args: (i) => ({ taxYear: '2025-26', contactIds: [i.contact] }) }],
  giving_get_statement: [{ args: (i) => ({ statementId: i.statement }) }],
  giving_resend_statements: [{ args: (i) => ({ statementId: i.statement }) }, { label: 'run', args: (i) => ({ runId: i.statementRun }) }],
  giving_list_statements: [{ args: (i) => ({ runId: i.statementRun }) }, { label: 'giver', args: (i) => ({ contactId: i.contact }) }],
  platform_invite_team_member: { notOwned: 'roleId names a role (owner, admin, staff, volunteer), the same in every organisation' },
  platform_resend_team_invite: [{ args: (i) => ({ inviteId: i.invite }) }],
  platform_cancel_team_invite: [{ args: (i) => ({ inviteId: i.invite }) }],
  platform_remove_team_member: [{ args: (i) => ({ userId: i.member }) }],
  platform_update_team_member_role: [{ args: (i) => ({ userId: i.member, roleId: 'volunteer' }) }],
};

/** Probes kept with their parts (`isolation/*.isolation.ts`), joined into the table above. */
const PARTS = loadIsolationParts();
for (const part of PARTS) {
  for (const [tool, entry] of Object.entries(part.entries)) {
    if (tool in ISOLATION) throw new Error(`Isolation probes for ${tool} are declared twice`);
    ISOLATION[tool] = entry as unknown as Entry;
  }
}

/** Top-level input fields that name a record: `id`, `…Id` and `…Ids`. */
function idArguments(input: unknown): string[] {
  const shape = (input as { shape?: Record<string, unknown> }).shape ?? {};
  return Object.keys(shape).filter((key) => key === 'id' || /Ids?$/.test(key));
}

/**
 * Tables of the kernel beneath the modules, which a call of any module's tool may write whatever
 * its module: the organisation's own row (its settings), the call's usage and result (metering,
 * idempotency), its audit row, a proposal when it is gated, the shared outbox and the message record
 * of any send, the care timeline synced after it, and the contacts every module's records name (several
 * create or update them through people's services). Checked around every probe, with the probed
 * tool's module's own tables.
 */
const KERNEL_TABLES = ['organisations', 'usage_events', 'tool_call_results', 'audit_events', 'proposals', 'outbox_messages', 'channel_messages', 'timeline_entries', 'contacts'];

/** The column naming a row's organisation: `org_id`, or the organisation's own id in its own table. */
const orgColumn = (table: string) => (table === 'organisations' ? 'id' : 'org_id');

/** The tables a module declares (its models, parts included): the registry's, so a new table is checked without a list to keep. */
function tablesOfModule(name: string): string[] {
  const module = MODULES.find((candidate) => candidate.name === name);
  if (!module) throw new Error(`No module ${name} in the registry`);
  return (module.models ?? []).map((model) => {
    const table = model.getTableName() as string | { tableName: string };
    return typeof table === 'string' ? table : table.tableName;
  });
}

/** One table's rows of one organisation: how many, and an md5 of their text in order. */
interface Checksum { rows: number; sum: string }

describe('every tool that takes an id: organisation B can neither see nor change A\'s record', () => {
  let harness: Harness;
  let a: TestOrg;
  let b: TestOrg;
  let ids: Ids;
  /** Strings only A's records contain: none may reach B. */
  const secrets = ['Isolda', 'isolda@a.example', 'Isolation tag', 'Isolation category', 'Isolation group', 'A pastoral message for Isolda', 'Isolation automation', 'A team note about Isolda', 'Visit Isolda', 'Isolation fund', 'Isolation appeal', ...PARTS.flatMap((part) => part.secrets)];

  /** Every table that holds organisations' rows (an `org_id` column, from the catalogue), and the organisations themselves. */
  let orgTables: Set<string>;
  /** A's rows in every table, taken once the records are made: the probes together must leave all of it as it was. */
  let wholeOfA: Map<string, Checksum>;

  /**
   * A's rows in each of `tables`, as a count and an md5 of the rows' text in order, in one query: a row
   * added, removed or changed in any column changes its table's checksum.
   */
  async function checksumsOfA(tables: Iterable<string>): Promise<Map<string, Checksum>> {
    const selects = [...tables].map((table) => `SELECT '${table}' AS name, count(*)::int AS rows, md5(coalesce(string_agg(r::text, E'\\n' ORDER BY r::text), '')) AS sum FROM "${table}" r WHERE r.${orgColumn(table)} = $1`);
    const { rows } = await harness.pool.query<{ name: string } & Checksum>(selects.join(' UNION ALL '), [a.orgId]);
    return new Map(rows.map((row) => [row.name, { rows: row.rows, sum: row.sum }]));
  }

  /** The tables whose checksums differ, each with its row counts before and after. */
  function changed(before: Map<string, Checksum>, after: Map<string, Checksum>): string[] {
    return [...before].filter(([table, sum]) => after.get(table)?.sum !== sum.sum)
      .map(([table, sum]) => `${table}: ${sum.rows} row(s) before, ${after.get(table)?.rows} after`);
  }

  /** What a probe of `tool` checks: its module's tables that hold organisations' rows, the kernel's, and those its isolation part names. */
  const tablesOfProbe = new Map<string, string[]>();
  function probeTables(tool: string): string[] {
    let tables = tablesOfProbe.get(tool);
    if (!tables) {
      const declared = findTool(tool);
      if (!declared) throw new Error(`No tool ${tool} in the catalogue`);
      const named = [...KERNEL_TABLES, ...(PARTS.find((part) => tool in part.entries)?.tables ?? [])];
      const unknown = named.filter((table) => !orgTables.has(table));
      if (unknown.length > 0) throw new Error(`Not tables holding organisations' rows: ${unknown.join(', ')}`);
      tables = [...new Set([...tablesOfModule(declared.module).filter((table) => orgTables.has(table)), ...named])];
      tablesOfProbe.set(tool, tables);
    }
    return tables;
  }

  beforeAll(async () => {
    harness = await Harness.start();
    a = await harness.createOrg({ name: 'Church A' });
    b = await harness.createOrg({ name: 'Church B' });
    const call = (key: string, tool: string, args: Record<string, unknown>) => harness.call(key, tool, args);
    const contact = (await call(a.apiKey, 'people_create_contact', { firstName: 'Isolda', lastName: 'Apart', email: 'isolda@a.example' })).contact.id;
    const relative = (await call(a.apiKey, 'people_create_contact', { firstName: 'Isolda', lastName: 'Apart', email: 'ISOLDA@a.example' })).contact.id;
    await call(a.apiKey, 'people_add_family_relationship', { contactId: contact, relatedContactId: relative, relationship: 'sister' });
    const note = (await call(a.apiKey, 'people_add_note', { contactId: contact, content: 'A team note about Isolda', followUpDate: '2031-01-01' })).note.id;
    const category = (await call(a.apiKey, 'people_create_tag_category', { name: 'Isolation category' })).category.id;
    const tag = (await call(a.apiKey, 'people_create_crm_tag', { name: 'Isolation tag', categoryId: category })).tag.id;
    await call(a.apiKey, 'people_add_contact_tags', { contactId: contact, tags: ['Isolation tag'] });
    const templateId = (await call(a.apiKey, 'people_list_segment_templates', {})).templates[0].id;
    const segment = (await call(a.apiKey, 'people_create_segment_from_template', { templateId, name: 'Isolation segment' })).segment.id;
    const group = (await call(a.apiKey, 'people_create_crm_group', { name: 'Isolation group' })).group.id;
    await call(a.apiKey, 'people_add_crm_group_member', { groupId: group, contactId: contact });
    const task = randomUUID();
    await harness.pool.query("INSERT INTO follow_up_tasks (id, org_id, contact_id, title) VALUES ($1, $2, $3, 'Visit Isolda')", [task, a.orgId, contact]);
    const outreach = (await call(a.apiKey, 'people_create_outreach', { contactId: contact, channel: 'email', subject: 'Thinking of you', body: 'A pastoral message for Isolda' })).item.id;
    const gated = await harness.invoke(a.apiKey, 'people_merge_data_quality_contacts', { keepContactId: contact, mergeContactId: relative, actionSummary: 'Merge Isolda' });
    expect(gated.body.error?.code).toBe('approval_required');
    const proposal = gated.body.error!.details.proposalId as string;
    const third = (await call(a.apiKey, 'people_create_contact', { firstName: 'Isolda', lastName: 'Apart', phone: '+44 7700 900123' })).contact.id;
    const rejected = await harness.invoke(a.apiKey, 'people_merge_data_quality_contacts', { keepContactId: contact, mergeContactId: third, actionSummary: 'Merge Isolda again' });
    const rejectedProposal = rejected.body.error!.details.proposalId as string;
    await call(a.apiKey, 'platform_reject_proposal', { proposalId: rejectedProposal });
    const declinedOutreach = (await call(a.apiKey, 'people_create_outreach', { contactId: relative, channel: 'email', subject: 'Hello', body: 'A pastoral message for Isolda, declined' })).item.id;
    await call(a.apiKey, 'people_decline_outreach', { outreachId: declinedOutreach });
    const automation = (await call(a.apiKey, 'people_create_pastoral_automation', { name: 'Isolation automation', type: 'welfare_check', enabled: false })).automation.id;

    const bContact = (await call(b.apiKey, 'people_create_contact', { firstName: 'Bob', email: 'bob@b.example' })).contact.id;
    const bSegment = (await call(b.apiKey, 'people_create_segment_from_template', { templateId, name: 'B segment' })).segment.id;
    const bGroup = (await call(b.apiKey, 'people_create_crm_group', { name: 'B group' })).group.id;
    const bTag = (await call(b.apiKey, 'people_create_crm_tag', { name: 'B tag' })).tag.id;
    const giving = await givingRecordsOf(a, contact);
    const bFund = await fundOf(b.orgId, 'B fund');
    const bCampaign = (await call(b.apiKey, 'giving_create_pledge_campaign', { name: 'B appeal', fundId: bFund })).campaign.id;
    ids = {
      contact, relative, note, tag, category, segment, group, task, outreach, proposal, automation, declinedOutreach, rejectedProposal, bContact, bSegment, bGroup, bTag,
      ...giving, bFund, bCampaign,
      invite: (await call(a.apiKey, 'platform_invite_team_member', { email: 'isolda@a.example', roleId: 'staff' })).invite.inviteId, member: a.ownerUserId,
    };
    for (const part of PARTS) Object.assign(ids, await part.seed({ harness, a, b, ids: ids as unknown as Record<string, string> }));
    orgTables = new Set((await harness.pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'org_id'")).rows.map((row) => row.table_name).concat('organisations'));
    wholeOfA = await checksumsOfA(orgTables);
  });

  async function fundOf(orgId: string, name: string): Promise<string> {
    const id = randomUUID();
    await harness.pool.query('INSERT INTO giving_funds (id, org_id, name) VALUES ($1, $2, $3)', [id, orgId, name]);
    return id;
  }

  /** A's giving records: a fund, a committed donation to it, a campaign with a pledge, a recurring gift. */
  async function givingRecordsOf(org: TestOrg, contactId: string) {
    const fund = await fundOf(org.orgId, 'Isolation fund');
    const batch = randomUUID();
    const donation = randomUUID();
    await harness.pool.query("INSERT INTO giving_batches (id, org_id, name, status, currency, committed_at) VALUES ($1, $2, 'Isolation batch', 'committed', 'GBP', now())", [batch, org.orgId]);
    await harness.pool.query(`INSERT INTO giving_donations (id, org_id, batch_id, contact_id, amount, currency, method, received_on)
      VALUES ($1, $2, $3, $4, 5000, 'GBP', 'cash', '2026-01-04')`, [donation, org.orgId, batch, contactId]);
    await harness.pool.query('INSERT INTO giving_designations (org_id, donation_id, fund_id, amount) VALUES ($1, $2, $3, 5000)', [org.orgId, donation, fund]);
    const campaign = (await harness.call(org.apiKey, 'giving_create_pledge_campaign', { name: 'Isolation appeal', fundId: fund })).campaign.id;
    const pledge = (await harness.call(org.apiKey, 'giving_create_pledge', { campaignId: campaign, contactId, amount: 1000 })).pledge.id;
    const recurringGift = (await harness.call(org.apiKey, 'giving_create_recurring_gift', { contactId, fundId: fund, amount: 500, method: 'standing_order', frequency: 'monthly' })).gift.id;
    const openBatch = (await harness.call(org.apiKey, 'giving_create_batch', { name: 'Isolation open batch' })).batch.id;
    await harness.call(org.apiKey, 'giving_record_donation', { batchId: openBatch, contactId, fundId: fund, amount: 700, method: 'cash', receivedOn: '2026-01-04' });
    const giver = (await harness.call(org.apiKey, 'giving_upsert_giver', { contactId, giverReference: 'ISO-1', postcode: 'LS1 4AP' })).giver.id;
    return { fund, donation, campaign, pledge, recurringGift, openBatch, giver, ...await giftAidRecordsOf(org, contactId) };
  }

  /** A's Gift Aid records: an oral declaration not yet confirmed, a validated claim, a statement for the tax year of A's gift. */
  async function giftAidRecordsOf(org: TestOrg, contactId: string) {
    const declaration = (await harness.call(org.apiKey, 'giving_record_gift_aid_declaration', { contactId, scope: 'past_and_future', method: 'oral', madeOn: '2026-01-04' })).declaration.id;
    const claim = randomUUID();
    await harness.pool.query(`INSERT INTO giving_gift_aid_claims (id, org_id, status, currency, claimed_on, gross_total, gift_aid_total, line_count, validated_at)
      VALUES ($1, $2, 'validated', 'GBP', CURRENT_DATE, 0, 0, 0, now())`, [claim, org.orgId]);
    const generated = await harness.call(org.apiKey, 'giving_generate_statements', { taxYear: '2025-26', contactIds: [contactId] });
    return { declaration, claim, statement: generated.statements[0].id, statementRun: generated.run.id };
  }

  afterAll(async () => {
    // Automation schedules outlive the test database; remove these organisations'.
    for await (const schedule of harness.temporal.schedule.list()) {
      if (schedule.scheduleId.includes(a.orgId) || schedule.scheduleId.includes(b.orgId)) {
        await harness.temporal.schedule.getHandle(schedule.scheduleId).delete().catch(() => undefined);
      }
    }
    await harness?.close();
  });

  it('lists every tool that takes an id, and only tools that exist', () => {
    const tools = allTools();
    const missing = tools.filter((tool) => idArguments(tool.input).length > 0 && !(tool.name in ISOLATION)).map((tool) => tool.name);
    expect(missing).toEqual([]);
    const names = new Set(tools.map((tool) => tool.name));
    expect(Object.keys(ISOLATION).filter((name) => !names.has(name))).toEqual([]);
  });

  const probes = Object.entries(ISOLATION).flatMap(([tool, entry]) =>
    Array.isArray(entry) ? entry.map((probe) => [`${tool}${probe.label ? ` (${probe.label})` : ''}`, tool, probe] as const) : []);

  it.each(probes)('%s with B\'s key finds nothing of A\'s and changes nothing', async (_label, tool, probe) => {
    const tables = probeTables(tool);
    const before = await checksumsOfA(tables);
    const args = probe.args(ids);
    const response = await harness.invoke(b.apiKey, tool, args);
    const text = JSON.stringify(response.body);
    for (const secret of secrets) expect(text).not.toContain(secret);
    for (const id of [ids.contact, ids.relative, ids.note, ids.outreach, ids.task]) {
      if (!JSON.stringify(args).includes(id)) expect(text).not.toContain(id);
    }
    if ((probe.outcome ?? 'not_found') === 'not_found') {
      expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 404, code: 'not_found' });
    } else {
      expect(response.status).toBe(200);
    }
    expect(changed(before, await checksumsOfA(tables))).toEqual([]);
  });

  // Each probe checks the tables it may reach; this catches a write anywhere else (another module's table reached
  // through its services): name that table in the part's `tables` (or the kernel's) and the probe that wrote it fails.
  // Before the tests below, which call A's own tools.
  it('after every probe, none of A\'s rows changed in any table, of any module', async () => {
    expect(changed(wholeOfA, await checksumsOfA(orgTables))).toEqual([]);
  });

  it('over MCP, B cannot follow A\'s approval tasks (pending or decided) as tasks', async () => {
    const mcp = await harness.mcpClient(b.apiKey);
    try {
      const taskIds = [`outreach-${ids.outreach}`, `outreach-${ids.declinedOutreach}`, `proposal-${ids.proposal}`, `proposal-${ids.rejectedProposal}`];
      for (const taskId of taskIds) {
        await expect(mcp.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).rejects.toThrow(/not found/i);
        await expect(mcp.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema)).rejects.toThrow(/not found/i);
      }
    } finally {
      await mcp.close();
    }
  });

  it('the dashboard approvals page shows B\'s staff nothing of A\'s queue', async () => {
    const staff = await harness.createMember(b.orgId, { role: 'admin' });
    const signIn = await fetch(`${harness.url}/dashboard/sign-in`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(harness.url).origin },
      body: new URLSearchParams({ email: staff.email, password: staff.password }),
    });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const page = await fetch(`${harness.url}/dashboard/approvals`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Church B');
    for (const secret of [...secrets, ids.outreach, ids.declinedOutreach, ids.proposal, ids.rejectedProposal, 'Merge Isolda']) expect(html).not.toContain(secret);
  });

  it('A still sees all of its own records (the probes above did not pass for want of data)', async () => {
    expect((await harness.call(a.apiKey, 'people_get_outreach_item', { outreachId: ids.outreach })).item.body).toBe('A pastoral message for Isolda');
    expect((await harness.call(a.apiKey, 'people_list_pending_outreach', {})).items.map((i: any) => i.id)).toContain(ids.outreach);
    expect((await harness.call(a.apiKey, 'platform_get_proposal', { proposalId: ids.proposal })).proposal.status).toBe('pending');
    expect((await harness.call(a.apiKey, 'people_list_follow_up_tasks', { contactId: ids.contact })).tasks.map((t: any) => t.id)).toContain(ids.task);
  });
});
