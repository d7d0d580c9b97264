import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { dayFromToday, mcpCall } from '../../../test/helpers/mcp-calls';

/**
 * Small group records through merge and erasure: merging two contacts who were both in one group
 * leaves one current membership (a leader's role carried over, the other closed and kept as
 * history), one pending request, one RSVP and one attendance record per meeting (present if either
 * was); erasing a contact deletes their memberships, requests, RSVPs and attendance.
 */
jest.setTimeout(120_000);

describe('groups: merge and erasure reach every contact column', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;

  const contact = async (firstName: string, lastName: string) => (await mcpCall(mcp, 'people_create_contact', { firstName, lastName })).contact.id as string;
  const merge = async (keepContactId: string, mergeContactId: string) => {
    const gated = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId, mergeContactId, actionSummary: 'Merge duplicates' });
    expect(gated.body.error?.code).toBe('approval_required');
    return harness.call(org.apiKey, 'platform_approve_proposal', { proposalId: gated.body.error!.details.proposalId });
  };
  const rows = async (table: string, contactId: string) => (await harness.pool.query(`SELECT * FROM ${table} WHERE org_id = $1 AND contact_id = $2`, [org.orgId, contactId])).rows;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Brigid' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  it('merging folds the duplicate\'s group records into the kept contact\'s', async () => {
    const keep = await contact('Jo', 'Bell');
    const duplicate = await contact('Joanne', 'Bell');
    const group = (await mcpCall(mcp, 'groups_create', { name: 'Merge house group' })).group.id;
    const other = (await mcpCall(mcp, 'groups_create', { name: 'Merge cell' })).group.id;
    await mcpCall(mcp, 'groups_add_member', { groupId: group, contactId: keep });
    await mcpCall(mcp, 'groups_set_leader', { groupId: group, contactId: duplicate });
    await mcpCall(mcp, 'groups_request_to_join', { groupId: other, contactId: keep });
    await mcpCall(mcp, 'groups_request_to_join', { groupId: other, contactId: duplicate });
    const past = (await mcpCall(mcp, 'groups_schedule_meeting', { groupId: group, startDate: dayFromToday(-2), startTime: '19:00' })).meetings[0].id;
    await mcpCall(mcp, 'groups_record_attendance', { meetingId: past, present: [duplicate], absent: [keep] });
    const coming = (await mcpCall(mcp, 'groups_schedule_meeting', { groupId: group, startDate: dayFromToday(5), startTime: '19:00' })).meetings[0].id;
    for (const contactId of [keep, duplicate]) {
      await harness.call(org.apiKey, 'groups_invoke_api_write', { method: 'PUT', path: `/api/groups/meetings/${coming}/rsvps`, body: { contactId, response: 'maybe' }, actionSummary: 'RSVP' });
    }

    await merge(keep, duplicate);

    const memberships = await rows('groups_memberships', keep);
    expect(memberships.filter((m) => m.left_at === null).map((m) => m.role)).toEqual(['leader']);
    expect(memberships.filter((m) => m.left_at !== null).map((m) => m.left_reason)).toEqual(['Merged into the same person\'s membership']);
    const requests = await rows('groups_join_requests', keep);
    expect(requests.map((r) => r.status).sort()).toEqual(['declined', 'pending']);
    expect(await rows('groups_meeting_rsvps', keep)).toHaveLength(1);
    const attendance = await rows('groups_attendance', keep);
    expect(attendance.map((a) => a.present)).toEqual([true]);
    for (const table of ['groups_memberships', 'groups_join_requests', 'groups_meeting_rsvps', 'groups_attendance']) expect(await rows(table, duplicate)).toEqual([]);
    const got = await mcpCall(mcp, 'groups_get', { groupId: group });
    expect(got.roster.map((m: any) => [m.contactId, m.role])).toEqual([[keep, 'leader']]);
  });

  it('erasing a contact deletes their memberships, requests, RSVPs and attendance', async () => {
    const gone = await contact('Erin', 'Erased');
    const group = (await mcpCall(mcp, 'groups_create', { name: 'Erasure group' })).group.id;
    await mcpCall(mcp, 'groups_add_member', { groupId: group, contactId: gone });
    const other = (await mcpCall(mcp, 'groups_create', { name: 'Erasure cell' })).group.id;
    await mcpCall(mcp, 'groups_request_to_join', { groupId: other, contactId: gone });
    const past = (await mcpCall(mcp, 'groups_schedule_meeting', { groupId: group, startDate: dayFromToday(-1), startTime: '19:00' })).meetings[0].id;
    await mcpCall(mcp, 'groups_record_attendance', { meetingId: past, present: [gone] });
    expect(await mcpCall(mcp, 'people_delete_contact', { contactId: gone, permanent: true })).toMatchObject({ deleted: 'permanent' });
    for (const table of ['groups_memberships', 'groups_join_requests', 'groups_meeting_rsvps', 'groups_attendance']) expect(await rows(table, gone)).toEqual([]);
  });
});
