import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Care team, safeguarding, crisis holds and pastoral settings: B's key with A's ids. */
export const isolation: IsolationPart = {
  tables: ['pastoral_settings', 'care_team_roles', 'care_team_assignments', 'contact_care_priorities', 'safeguarding_checks', 'safeguarding_policies', 'crisis_holds', 'counseling_resources'],
  secrets: ['Isolation care role', 'Isolation check note', 'Isolation policy', 'Isolation priority reason', 'Isolation hold cleared', 'Isolation counselling service'],
  async seed({ harness, a, b, ids }) {
    await harness.call(a.apiKey, 'people_initialize_pastoral_settings', { welfareIntervalDays: 45 });
    const role = (await harness.call(a.apiKey, 'people_create_care_team_role', { name: 'Isolation care role', description: 'Isolation care role' })).role.roleId;
    const assignment = (await harness.call(a.apiKey, 'people_assign_care_team_member', { roleId: role, userId: ids.member, contactId: ids.contact })).assignment.assignmentId;
    await harness.call(a.apiKey, 'people_set_contact_care_priority', { contactId: ids.contact, priority: 'high', reason: 'Isolation priority reason' });
    const check = (await harness.call(a.apiKey, 'people_create_safeguarding_check', { contactId: ids.contact, checkType: 'Enhanced DBS', certificateNumber: '998877665544', notes: 'Isolation check note' })).check.checkId;
    const policy = (await harness.call(a.apiKey, 'people_create_safeguarding_policy', { title: 'Isolation policy', version: '1', ownerUserId: ids.member })).policy.policyId;
    // A cleared hold (so A's messages still flow for the other probes) whose note is A's secret.
    const placed = await harness.call(a.apiKey, 'people_analyze_counseling_referral', { text: 'She said she wants to die.', contactId: ids.relative });
    await harness.call(a.apiKey, 'people_clear_crisis_hold', { holdId: placed.hold.holdId, note: 'Isolation hold cleared' });
    const resource = (await harness.call(a.apiKey, 'people_add_counseling_resource', { name: 'Isolation counselling service', contact: '01632 960001', how: 'call' })).resource.resourceId;
    const bRole = (await harness.call(b.apiKey, 'people_create_care_team_role', { name: 'B role' })).role.roleId;
    return { careResource: resource, careRole: role, careAssignment: assignment, careCheck: check, carePolicy: policy, careHold: placed.hold.holdId, bCareRole: bRole };
  },
  entries: {
    people_set_care_team_role: [{ args: (i) => ({ roleId: i.careRole, name: 'Taken by B' }) }],
    people_remove_care_team_role: [{ args: (i) => ({ roleId: i.careRole }) }],
    people_assign_care_team_member: [
      { label: 'A\'s role', args: (i) => ({ roleId: i.careRole, userId: i.member }) },
      { label: 'B\'s role, A\'s member', args: (i) => ({ roleId: i.bCareRole, userId: i.member }) },
      { label: 'B\'s role, A\'s contact', args: (i) => ({ roleId: i.bCareRole, userId: i.member, contactId: i.contact }) },
    ],
    people_remove_care_team_assignment: [{ args: (i) => ({ assignmentId: i.careAssignment }) }],
    people_list_care_team_assignments: [
      { label: 'by role', args: (i) => ({ roleId: i.careRole }), outcome: 'no_leak' },
      { label: 'by member', args: (i) => ({ userId: i.member }), outcome: 'no_leak' },
      { label: 'by contact', args: (i) => ({ contactId: i.contact }), outcome: 'no_leak' },
    ],
    people_set_contact_care_priority: [{ args: (i) => ({ contactId: i.contact, priority: 'low' }) }],
    people_get_contact_care_status: [{ args: (i) => ({ contactId: i.contact }) }],
    people_create_safeguarding_check: [{ args: (i) => ({ contactId: i.contact, checkType: 'Planted by B' }) }],
    people_set_safeguarding_check: [{ args: (i) => ({ checkId: i.careCheck, notes: 'Planted by B' }) }],
    people_remove_safeguarding_check: [{ args: (i) => ({ checkId: i.careCheck }) }],
    people_list_safeguarding_checks: [{ args: (i) => ({ contactId: i.contact }), outcome: 'no_leak' }, { label: 'by certificate', args: () => ({ certificateNumber: '998877665544' }), outcome: 'no_leak' }],
    people_create_safeguarding_policy: [{ args: (i) => ({ title: 'Planted by B', version: '1', ownerUserId: i.member }) }],
    people_set_safeguarding_policy: [{ args: (i) => ({ policyId: i.carePolicy, version: '2' }) }],
    people_remove_safeguarding_policy: [{ args: (i) => ({ policyId: i.carePolicy }) }],
    people_analyze_counseling_referral: [{ args: (i) => ({ text: 'He wants to kill himself.', contactId: i.contact }) }],
    people_list_crisis_holds: [{ args: (i) => ({ contactId: i.relative, status: 'all' }), outcome: 'no_leak' }],
    people_clear_crisis_hold: [{ args: (i) => ({ holdId: i.careHold, note: 'Planted by B' }) }],
    people_remove_counseling_resource: [{ args: (i) => ({ resourceId: i.careResource }) }],
    people_list_pastoral_notes: [
      { label: 'by contact', args: (i) => ({ contactId: i.contact }), outcome: 'no_leak' },
      { label: 'by author', args: (i) => ({ authorUserId: i.member }), outcome: 'no_leak' },
    ],
  },
};
