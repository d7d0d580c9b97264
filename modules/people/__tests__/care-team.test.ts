import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { startSmtpServer, type TestSmtpServer } from '../../../test/helpers/message-servers';

/** Pastoral settings, the care team and what its roles permit, care status and predictions, the dashboard and notes across people. */
describe('care team, pastoral settings and dashboard', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let smtp: TestSmtpServer;
  const saved = { ...process.env };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    process.env.SMTP_FROM = 'Grace Church <office@grace.example>';
    // Its own stack: the worker sends through the SMTP server this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'Grace Church' });
    other = await harness.createOrg({ name: 'Other Church' });
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=people');
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await smtp?.close();
    process.env = saved;
  });

  async function seedContact(target: TestOrg, first: string, daysOld: number): Promise<string> {
    const id = randomUUID();
    await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, status, created_at)
      VALUES ($1, $2, $3, 'Care', $4, 'subscribed', now() - make_interval(days => $5))`, [id, target.orgId, first, `${first.toLowerCase()}-${id.slice(0, 6)}@example.org`, daysOld]);
    return id;
  }

  describe('pastoral settings', () => {
    it('answers the defaults until stored, initialises once, and the welfare interval drives the welfare-due list', async () => {
      const defaults = (await mcpCall(mcp, 'people_get_pastoral_settings', {})).settings;
      expect(defaults).toMatchObject({ initialized: false, welfareIntervalDays: 180, defaultPrivacy: 'team', defaultConfidentialityLevel: 'green', quietHours: null });
      expect(defaults.griefPlan.map((t: any) => t.offsetDays)).toEqual([7, 30, 91, 182, 365]);
      expect(defaults.griefPlan.at(-1).label).toBe('First anniversary');

      const first = await mcpCall(mcp, 'people_initialize_pastoral_settings', { quietHours: { start: '21:00', end: '08:00' } });
      expect(first).toMatchObject({ created: true, settings: { initialized: true, welfareIntervalDays: 180, quietHours: { start: '21:00', end: '08:00' } } });
      const again = await mcpCall(mcp, 'people_initialize_pastoral_settings', { welfareIntervalDays: 7 });
      expect(again).toMatchObject({ created: false, settings: { welfareIntervalDays: 180 } });

      const forty = await seedContact(org, 'Forty', 40);
      const twenty = await seedContact(org, 'Twenty', 20);
      const changed = await mcpCall(mcp, 'people_set_pastoral_settings', { welfareIntervalDays: 30 });
      expect(changed.changed).toEqual(['welfareIntervalDays']);
      const due = await mcpCall(mcp, 'people_list_welfare_due_contacts', {});
      expect(due.days).toBe(30);
      const dueIds = due.contacts.map((c: any) => c.contactId);
      expect(dueIds).toContain(forty);
      expect(dueIds).not.toContain(twenty);
      expect((await mcpCall(mcp, 'people_list_welfare_due_contacts', { days: 10 })).contacts.map((c: any) => c.contactId)).toContain(twenty);
      // An automation made without days follows the interval.
      const automation = (await mcpCall(mcp, 'people_create_pastoral_automation', { name: 'Checks', type: 'welfare_check', enabled: false })).automation;
      expect(automation.daysWithoutContact).toBe(30);
      // Another organisation still has its own defaults.
      expect((await harness.call(other.apiKey, 'people_get_pastoral_settings', {})).settings).toMatchObject({ initialized: false, welfareIntervalDays: 180 });
    });

    it('refuses bad settings and changes nothing; two changes at once both land', async () => {
      const before = (await mcpCall(mcp, 'people_get_pastoral_settings', {})).settings;
      expect((await mcpRefusal(mcp, 'people_set_pastoral_settings', { griefPlan: [{ label: 'A', offsetDays: 7 }, { label: 'B', offsetDays: 7 }] })).code).toBe('validation_failed');
      expect((await mcpRefusal(mcp, 'people_set_pastoral_settings', { quietHours: { start: '22:00', end: '22:00' } })).code).toBe('validation_failed');
      expect((await mcpRefusal(mcp, 'people_set_pastoral_settings', { quietHours: { start: '25:00', end: '07:00' } })).code).toBe('validation_failed');
      expect((await mcpRefusal(mcp, 'people_set_pastoral_settings', {})).code).toBe('validation_failed');
      expect((await mcpCall(mcp, 'people_get_pastoral_settings', {})).settings).toEqual(before);

      await Promise.all([
        harness.call(org.apiKey, 'people_set_pastoral_settings', { defaultPrivacy: 'private' }),
        harness.call(org.apiKey, 'people_set_pastoral_settings', { griefPlan: [{ label: 'Two years', offsetDays: 730 }, { label: 'One week', offsetDays: 7 }] }),
      ]);
      const after = (await mcpCall(mcp, 'people_get_pastoral_settings', {})).settings;
      expect(after.defaultPrivacy).toBe('private');
      expect(after.griefPlan).toEqual([{ label: 'One week', offsetDays: 7 }, { label: 'Two years', offsetDays: 730 }]);
      await mcpCall(mcp, 'people_set_pastoral_settings', { defaultPrivacy: 'team' });
    });
  });

  describe('care team', () => {
    it('seeds the usual roles once, keeps names unique, assigns members under the role\'s permissions', async () => {
      const seeded = await mcpCall(mcp, 'people_seed_care_team_roles', {});
      expect(seeded.created.map((r: any) => r.name).sort()).toEqual(['Pastoral care lead', 'Pastoral visitor', 'Prayer team', 'Senior pastor']);
      const reseeded = await Promise.all([mcpCall(mcp, 'people_seed_care_team_roles', {}), harness.call(org.apiKey, 'people_seed_care_team_roles', {})]);
      expect(reseeded.map((r) => r.created.length)).toEqual([0, 0]);
      expect((await mcpCall(mcp, 'people_list_care_team_roles', {})).roles).toHaveLength(4);
      expect((await mcpRefusal(mcp, 'people_create_care_team_role', { name: 'pastoral VISITOR' })).code).toBe('conflict');

      const roles = Object.fromEntries((await mcpCall(mcp, 'people_list_care_team_roles', {})).roles.map((r: any) => [r.name, r]));
      expect(roles['Senior pastor']).toMatchObject({ canApproveOutreach: true, canViewConfidential: true, memberCount: 0 });
      const hospital = (await mcpCall(mcp, 'people_create_care_team_role', { name: 'Hospital visitor', description: 'Visits people in hospital' })).role;
      const renamed = await mcpCall(mcp, 'people_set_care_team_role', { roleId: hospital.roleId, name: 'Hospital and care home visitor' });
      expect(renamed.changed).toEqual(['name']);

      const volunteer = await harness.createMember(org.orgId, { role: 'volunteer' });
      const staff = await harness.createMember(org.orgId, { role: 'staff' });
      const patient = await seedContact(org, 'Patient', 10);
      const assigned = await mcpCall(mcp, 'people_assign_care_team_member', { roleId: hospital.roleId, userId: volunteer.userId, contactId: patient });
      expect(assigned).toMatchObject({ created: true, assignment: { roleName: 'Hospital and care home visitor', memberEmail: volunteer.email, contactId: patient, contactName: 'Patient Care' } });
      const twice = await Promise.all([1, 2].map(() => harness.call(org.apiKey, 'people_assign_care_team_member', { roleId: hospital.roleId, userId: volunteer.userId, contactId: patient })));
      expect(twice.map((t) => t.created)).toEqual([false, false]);
      expect((await mcpCall(mcp, 'people_list_care_team_assignments', { contactId: patient })).assignments).toHaveLength(1);

      // A volunteer never holds a role that approves messages; confidential roles need safeguarding permission.
      const refusedVolunteer = await mcpRefusal(mcp, 'people_assign_care_team_member', { roleId: roles['Senior pastor'].roleId, userId: volunteer.userId });
      expect(refusedVolunteer.code).toBe('conflict');
      expect(refusedVolunteer.message).toContain('volunteer');
      const refusedStaff = await mcpRefusal(mcp, 'people_assign_care_team_member', { roleId: roles['Senior pastor'].roleId, userId: staff.userId });
      expect(refusedStaff.message).toContain('safeguarding');
      // Granting approval to a role a volunteer already holds is refused too.
      expect((await mcpRefusal(mcp, 'people_set_care_team_role', { roleId: hospital.roleId, canApproveOutreach: true })).code).toBe('conflict');
      expect((await mcpCall(mcp, 'people_list_care_team_assignments', { userId: staff.userId })).assignments).toEqual([]);

      // Another organisation's ids behave as missing.
      for (const [tool, args] of [
        ['people_assign_care_team_member', { roleId: hospital.roleId, userId: volunteer.userId }],
        ['people_set_care_team_role', { roleId: hospital.roleId, name: 'Taken' }],
        ['people_remove_care_team_role', { roleId: hospital.roleId }],
        ['people_remove_care_team_assignment', { assignmentId: assigned.assignment.assignmentId }],
      ] as const) {
        expect([tool, (await harness.invoke(other.apiKey, tool, args)).body.error?.code]).toEqual([tool, 'not_found']);
      }
      const otherRoles = await harness.call(other.apiKey, 'people_seed_care_team_roles', {});
      expect((await mcpRefusal(mcp, 'people_assign_care_team_member', { roleId: otherRoles.created[0].roleId, userId: staff.userId })).code).toBe('not_found');
      expect((await mcpRefusal(mcp, 'people_assign_care_team_member', { roleId: roles['Prayer team'].roleId, userId: other.ownerUserId })).code).toBe('not_found');
      expect((await harness.call(other.apiKey, 'people_list_care_team_assignments', {})).assignments).toEqual([]);

      // Overview and status reflect the assignment and a raised priority.
      const lonely = await seedContact(org, 'Lonely', 10);
      await mcpCall(mcp, 'people_set_contact_care_priority', { contactId: lonely, priority: 'urgent', reason: 'Recently widowed' });
      const raised = await mcpCall(mcp, 'people_set_contact_care_priority', { contactId: patient, priority: 'high', reason: 'In hospital' });
      expect(raised).toMatchObject({ previousPriority: 'normal', priority: 'high' });
      const overview = await mcpCall(mcp, 'people_get_care_team_overview', {});
      expect(overview.highPriorityWithoutCarer.map((c: any) => c.contactId)).toEqual([lonely]);
      expect(overview.members).toContainEqual(expect.objectContaining({ userId: volunteer.userId, contacts: 1, roles: ['Hospital and care home visitor'] }));
      expect(overview.approversNamed).toBe(false);
      const status = (await mcpCall(mcp, 'people_get_contact_care_status', { contactId: patient })).status;
      expect(status).toMatchObject({ priority: 'high', priorityReason: 'In hospital', onCrisisHold: false, welfareDue: false, welfareIntervalDays: 30 });
      expect(status.carers.map((c: any) => c.userId)).toEqual([volunteer.userId]);
      expect(status).toMatchObject({ daysSinceContact: 10, lastPastoralContactAt: null, openNoteFollowUps: 0, pendingOutreach: 0 });
      await mcpCall(mcp, 'people_add_note', { contactId: patient, content: 'Visited on the ward.', followUpDate: '2031-01-01' });
      expect((await mcpCall(mcp, 'people_get_contact_care_status', { contactId: patient })).status).toMatchObject({ daysSinceContact: 0, openNoteFollowUps: 1, lastPastoralContactAt: expect.any(String) });
      expect((await harness.invoke(other.apiKey, 'people_get_contact_care_status', { contactId: patient })).body.error?.code).toBe('not_found');

      const removed = await mcpCall(mcp, 'people_remove_care_team_assignment', { assignmentId: assigned.assignment.assignmentId });
      expect(removed.removed).toBe(true);
      const gone = await mcpCall(mcp, 'people_remove_care_team_role', { roleId: hospital.roleId });
      expect(gone.removedAssignments).toBe(0);
    });

    it('once someone holds an approving role, only owners, admins and approving role holders approve pastoral messages', async () => {
      const staffKey = await harness.createKey(org.orgId, ['people:read', 'people:write'], 'staff');
      const leadKey = await harness.createKey(org.orgId, ['people:read', 'people:write'], 'staff', { safeguarding: true });
      const contactId = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Mary', lastName: 'Approve', email: 'mary@example.org' })).contact.id;
      const queue = async () => (await harness.call(org.apiKey, 'people_create_outreach', { contactId, channel: 'email', subject: 'Hello', body: 'Hi Mary' })).item;

      // No approvers named yet: any staff member may approve, as before.
      const early = await queue();
      expect((await harness.call(staffKey.apiKey, 'people_approve_outreach', { outreachId: early.id, contentVersion: 1 })).item.status).toBe('sent');

      const lead = (await mcpCall(mcp, 'people_list_care_team_roles', {})).roles.find((r: any) => r.name === 'Pastoral care lead');
      await mcpCall(mcp, 'people_assign_care_team_member', { roleId: lead.roleId, userId: leadKey.userId });
      expect((await mcpCall(mcp, 'people_get_care_team_overview', {})).approversNamed).toBe(true);

      const item = await queue();
      const refused = await harness.invoke(staffKey.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
      expect(refused.body.error).toMatchObject({ code: 'forbidden' });
      expect((await harness.call(org.apiKey, 'people_get_outreach_item', { outreachId: item.id })).item.status).toBe('pending_review');
      expect((await harness.call(leadKey.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 })).item.status).toBe('sent');
      // The owner always may.
      const third = await queue();
      expect((await harness.call(org.apiKey, 'people_approve_outreach', { outreachId: third.id, contentVersion: 1 })).item.status).toBe('sent');
      // An approver who leaves the team names no one: approval opens to staff again.
      await harness.call(org.apiKey, 'platform_remove_team_member', { userId: leadKey.userId });
      expect((await mcpCall(mcp, 'people_get_care_team_overview', {})).approversNamed).toBe(false);
      const fourth = await queue();
      expect((await harness.call(staffKey.apiKey, 'people_approve_outreach', { outreachId: fourth.id, contentVersion: 1 })).item.status).toBe('sent');
    });
  });

  describe('erasure and merge', () => {
    it('permanent erasure removes every care record of the person; merging moves them to the kept contact', async () => {
      const role = (await mcpCall(mcp, 'people_list_care_team_roles', {})).roles.find((r: any) => r.name === 'Pastoral visitor');
      const fill = async (contactId: string) => {
        await mcpCall(mcp, 'people_assign_care_team_member', { roleId: role.roleId, userId: org.ownerUserId, contactId });
        await mcpCall(mcp, 'people_set_contact_care_priority', { contactId, priority: 'high' });
        await mcpCall(mcp, 'people_create_safeguarding_check', { contactId, checkType: 'DBS', certificateNumber: 'ERASE1234' });
        await mcpCall(mcp, 'people_analyze_counseling_referral', { text: 'He says he is suicidal.', contactId });
      };
      const tables = ['care_team_assignments', 'contact_care_priorities', 'safeguarding_checks', 'crisis_holds'];
      const rowsOf = async (contactId: string) => {
        const counts: Record<string, number> = {};
        for (const table of tables) counts[table] = (await harness.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE contact_id = $1`, [contactId])).rows[0].n;
        return counts;
      };
      const erased = await seedContact(org, 'Erased', 3);
      await fill(erased);
      expect(Object.values(await rowsOf(erased)).every((n) => n === 1)).toBe(true);
      await mcpCall(mcp, 'people_delete_contact', { contactId: erased, permanent: true });
      expect(await rowsOf(erased)).toEqual({ care_team_assignments: 0, contact_care_priorities: 0, safeguarding_checks: 0, crisis_holds: 0 });

      const kept = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Merge', lastName: 'Kept', email: 'merge-kept@example.org' })).contact.id;
      const merged = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Merge', lastName: 'Gone', email: 'merge-gone@example.org' })).contact.id;
      await fill(merged);
      const result = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId: kept, mergeContactId: merged, actionSummary: 'Merge the two' });
      const proposalId = result.body.error?.details?.proposalId as string;
      await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId });
      for (let i = 0; i < 50 && (await rowsOf(kept)).crisis_holds === 0; i++) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await rowsOf(kept)).toEqual({ care_team_assignments: 1, contact_care_priorities: 1, safeguarding_checks: 1, crisis_holds: 1 });
      // The hold moved with the person: messages to the kept contact wait too.
      expect((await mcpCall(mcp, 'people_get_contact_care_status', { contactId: kept })).status.onCrisisHold).toBe(true);
    });
  });

  describe('predictions, dashboard and notes under the visibility rule', () => {
    it('explains every prediction, says which signals it cannot compute, and never counts a restricted record without people:safeguarding', async () => {
      const staff = await harness.createKey(org.orgId, ['people:read', 'people:write'], 'staff');
      // Long without contact, but a private note last week (only a safeguarding holder may count it).
      const quiet = await seedContact(org, 'Quiet', 400);
      await mcpCall(mcp, 'people_add_note', { contactId: quiet, content: 'Confidential conversation about her marriage.', privacy: 'private', followUpDate: '2020-01-01' });
      // A private support life event, recent.
      const ill = await seedContact(org, 'Ill', 5);
      await mcpCall(mcp, 'people_record_life_event', { contactId: ill, type: 'illness', title: 'Diagnosis', privacy: 'private' });
      // A private prayer request and a confidential visit: counted on the dashboard for a safeguarding holder only.
      await mcpCall(mcp, 'people_add_prayer_request', { contactId: ill, request: 'Healing after the diagnosis', visibility: 'private' });
      await mcpCall(mcp, 'people_add_prayer_request', { contactId: ill, request: 'Strength for the family', visibility: 'team' });
      await mcpCall(mcp, 'people_log_pastoral_visit', { contactId: ill, kind: 'hospital', summary: 'Sat with her after the results', confidentialityLevel: 'red' });

      const asStaff = await harness.call(staff.apiKey, 'people_list_care_predictions', { limit: 200 });
      const asOwner = await mcpCall(mcp, 'people_list_care_predictions', { limit: 200 });
      expect(asOwner.signalsUnavailable).toEqual([]);
      expect(asOwner.signalsUsed).toContain('stopped_attending');
      const reasonsOf = (result: any, id: string) => (result.predictions.find((p: any) => p.contactId === id)?.reasons ?? []).map((r: any) => r.signal);
      expect(reasonsOf(asStaff, quiet)).toContain('no_recent_contact');
      expect(reasonsOf(asOwner, quiet)).not.toContain('no_recent_contact');
      expect(reasonsOf(asOwner, ill)).toContain('support_life_event');
      expect(reasonsOf(asStaff, ill)).not.toContain('support_life_event');
      expect(JSON.stringify(asStaff)).not.toContain('Diagnosis');
      for (const prediction of asOwner.predictions) expect(prediction.reasons.length).toBeGreaterThan(0);

      // A bereavement ten days ago: its one-week touchpoint is due, and says so.
      const bereaved = await seedContact(org, 'Bereaved', 2);
      const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
      await mcpCall(mcp, 'people_record_life_event', { contactId: bereaved, type: 'bereavement', title: 'Loss of her husband', eventDate: tenDaysAgo });
      let griefReasons: any[] = [];
      for (let i = 0; i < 50 && griefReasons.length === 0; i++) {
        const found = (await mcpCall(mcp, 'people_list_care_predictions', { limit: 200 })).predictions.find((p: any) => p.contactId === bereaved);
        griefReasons = (found?.reasons ?? []).filter((r: any) => r.signal === 'grief_touchpoint_due');
        if (griefReasons.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(griefReasons[0].detail).toContain('One week');
      const counts = asOwner.predictions.map((p: any) => p.reasons.length);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));

      const staffBoard = (await harness.call(staff.apiKey, 'people_get_pastoral_dashboard', {})).dashboard;
      const ownerBoard = (await mcpCall(mcp, 'people_get_pastoral_dashboard', {})).dashboard;
      expect(ownerBoard.openNoteFollowUps).toBe(staffBoard.openNoteFollowUps + 1);
      expect(ownerBoard.overdueNoteFollowUps).toBe(staffBoard.overdueNoteFollowUps + 1);
      expect(ownerBoard.welfareDue).toBe((await mcpCall(mcp, 'people_list_welfare_due_contacts', { limit: 500 })).contacts.length);
      expect(staffBoard.welfareDue).toBe((await harness.call(staff.apiKey, 'people_list_welfare_due_contacts', { limit: 500 })).contacts.length);
      expect(ownerBoard.lifeEvents.openSupport).toBe(staffBoard.lifeEvents.openSupport + 1);
      expect(ownerBoard.prayerAndVisits.activePrayerRequests).toBe(staffBoard.prayerAndVisits.activePrayerRequests + 1);
      expect(staffBoard.prayerAndVisits.activePrayerRequests).toBeGreaterThanOrEqual(1);
      expect(ownerBoard.prayerAndVisits.visitsLast30Days).toBe(staffBoard.prayerAndVisits.visitsLast30Days + 1);
      const { rows } = await harness.pool.query("SELECT count(*)::int AS n FROM outreach_items WHERE org_id = $1 AND status = 'pending_review'", [org.orgId]);
      expect(ownerBoard.pendingOutreach).toBe(rows[0].n);

      const ownerNotes = (await mcpCall(mcp, 'people_list_pastoral_notes', { followUp: 'open' })).notes;
      const staffNotes = (await harness.call(staff.apiKey, 'people_list_pastoral_notes', { followUp: 'open' })).notes;
      expect(ownerNotes.map((n: any) => n.contactId)).toContain(quiet);
      expect(ownerNotes.find((n: any) => n.contactId === quiet)).toMatchObject({ contactName: 'Quiet Care', privacy: 'private' });
      expect(staffNotes.map((n: any) => n.contactId)).not.toContain(quiet);
      expect((await harness.call(other.apiKey, 'people_list_pastoral_notes', {})).notes).toEqual([]);
      expect((await harness.invoke(other.apiKey, 'people_list_pastoral_notes', { contactId: quiet })).body.result?.notes ?? []).toEqual([]);
    });
  });
});
