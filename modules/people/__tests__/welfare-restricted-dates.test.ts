import { randomUUID } from 'node:crypto';
import { Harness, type TestOrg } from '../../../test/helpers/harness';

/**
 * A contact whose only recent pastoral contact is a restricted (private) note: text written by
 * automations and agents, and welfare-due membership for a caller without people:safeguarding,
 * must come from visible contact only, so none of them dates that note.
 */
describe('welfare-due lists, automations and agents never date a restricted note', () => {
  let harness: Harness;
  const orgs: TestOrg[] = [];
  const ADDED_DAYS_AGO = 400;
  const RESTRICTED_NOTE_DAYS_AGO = 150;

  /** A new organisation with one such contact; the note is also on the timeline, as people_add_note puts it there. */
  async function orgWithRestrictedCare(name: string): Promise<{ org: TestOrg; contactId: string }> {
    const org = await harness.createOrg({ name });
    orgs.push(org);
    const contactId = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Hazel', lastName: 'Hidden', email: `hazel-${randomUUID()}@example.org` })).contact.id;
    const note = (await harness.call(org.apiKey, 'people_add_note', { contactId, content: 'Private pastoral matter', privacy: 'private' })).note.id;
    await harness.pool.query('UPDATE contacts SET created_at = now() - make_interval(days => $2) WHERE id = $1', [contactId, ADDED_DAYS_AGO]);
    await harness.pool.query('UPDATE notes SET created_at = now() - make_interval(days => $2) WHERE id = $1', [note, RESTRICTED_NOTE_DAYS_AGO]);
    await harness.pool.query('UPDATE timeline_entries SET occurred_at = now() - make_interval(days => $2) WHERE contact_id = $1', [contactId, RESTRICTED_NOTE_DAYS_AGO]);
    return { org, contactId };
  }

  beforeAll(async () => {
    harness = await Harness.start();
  });

  afterAll(async () => {
    // Schedules outlive the test database; remove these organisations'.
    for await (const schedule of harness.temporal.schedule.list()) {
      if (orgs.some((org) => schedule.scheduleId.includes(org.orgId))) await harness.temporal.schedule.getHandle(schedule.scheduleId).delete().catch(() => undefined);
    }
    await harness?.close();
  });

  it('membership for a caller without safeguarding follows visible contact, so varying days finds nothing', async () => {
    const { org, contactId } = await orgWithRestrictedCare('Oracle Chapel');
    const staff = (await harness.createKey(org.orgId, ['people:read'], 'staff')).apiKey;
    const listed = async (key: string, days: number) =>
      (await harness.call(key, 'people_list_welfare_due_contacts', { days })).contacts.find((c: any) => c.contactId === contactId);
    // Either side of the restricted note's age the answer is the same for staff: due, 400 days, no date.
    for (const days of [RESTRICTED_NOTE_DAYS_AGO - 1, RESTRICTED_NOTE_DAYS_AGO + 1, ADDED_DAYS_AGO - 1]) {
      expect(await listed(staff, days)).toMatchObject({ daysSinceContact: ADDED_DAYS_AGO, lastPastoralContactAt: null });
    }
    expect(await listed(staff, ADDED_DAYS_AGO + 1)).toBeUndefined();
    // With safeguarding the note counts, for membership as well as the date.
    expect(await listed(org.apiKey, RESTRICTED_NOTE_DAYS_AGO - 1)).toMatchObject({ daysSinceContact: RESTRICTED_NOTE_DAYS_AGO });
    expect(await listed(org.apiKey, RESTRICTED_NOTE_DAYS_AGO + 1)).toBeUndefined();
  });

  it('an automation queues and explains outreach from visible contact only', async () => {
    const { org, contactId } = await orgWithRestrictedCare('Automation Chapel');
    const created = await harness.call(org.apiKey, 'people_create_pastoral_automation', { name: 'Welfare checks', type: 'welfare_check', daysWithoutContact: 180, channel: 'email' });
    const run = await harness.call(org.apiKey, 'people_run_pastoral_generation', { automationId: created.automation.id });
    const item = run.items.find((i: any) => i.contactId === contactId);
    expect(item).toBeDefined();
    expect(item.reason).toBe(`${ADDED_DAYS_AGO} days since last pastoral contact`);
    // What a reader without safeguarding sees in the queue matches their own welfare-due list.
    const staff = (await harness.createKey(org.orgId, ['people:read'], 'staff')).apiKey;
    const seen = await harness.call(staff, 'people_get_outreach_item', { outreachId: item.id });
    // As days, not as a bare number: a random id can hold the digits (a CI run's contact id did).
    expect(JSON.stringify(seen)).not.toContain(`${RESTRICTED_NOTE_DAYS_AGO} days`);
    expect(seen.item.reason).toBe(`${ADDED_DAYS_AGO} days since last pastoral contact`);
  });

  it('the pastoral-care agent proposes and explains from visible contact only', async () => {
    const { org, contactId } = await orgWithRestrictedCare('Agent Chapel');
    await harness.call(org.apiKey, 'platform_set_agent_autonomy', { agent: 'pastoral_care', autonomy: 'propose' });
    await harness.temporal.schedule.getHandle(`agent-${org.orgId}-pastoral_care`).trigger('ALLOW_ALL');
    let proposal: any;
    for (let i = 0; i < 100 && !proposal; i++) {
      const { rows } = await harness.pool.query("SELECT id FROM proposals WHERE org_id = $1 AND agent_key = 'pastoral_care'", [org.orgId]);
      if (rows[0]) proposal = rows[0];
      else await new Promise((r) => setTimeout(r, 200));
    }
    expect(proposal).toBeDefined();
    // Read as a platform:read holder would: summary and the action's reason.
    const reader = (await harness.createKey(org.orgId, ['platform:read', 'people:write'], 'staff')).apiKey;
    const read = (await harness.call(reader, 'platform_get_proposal', { proposalId: proposal.id })).proposal;
    expect(read.action.arguments.contactId).toBe(contactId);
    expect(read.action.arguments.reason).toBe(`${ADDED_DAYS_AGO} days since last pastoral contact`);
    expect(read.summary).toContain(`${ADDED_DAYS_AGO} days since last pastoral contact`);
    expect(JSON.stringify(read)).not.toContain(`${RESTRICTED_NOTE_DAYS_AGO} days`);
  });
});
