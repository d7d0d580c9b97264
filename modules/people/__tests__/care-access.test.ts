import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall } from '../../../test/helpers/mcp-calls';

/**
 * Reading a person's care timeline through the timeline and profile tools, over MCP: a read that
 * showed private or confidential entries leaves one access event naming the reader, the person and
 * the entries' ids (never their words); a read that showed none, or a caller who could not see them,
 * leaves nothing.
 */
describe('care timeline reads leave access events', () => {
  let harness: Harness;
  let org: TestOrg;
  let carer: { apiKey: string; userId: string };
  let carerMcp: McpClient;
  let staffMcp: McpClient;
  let contactId: string;
  let plainContactId: string;
  let redNoteId: string;

  const accessEvents = async (contact: string) => (await harness.pool.query(
    "SELECT tool, actor_user_id, target_type, target_id, contact_ids, changes FROM audit_events WHERE org_id = $1 AND category = 'access' AND target_id = $2 ORDER BY seq",
    [org.orgId, contact])).rows;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Access Abbey' });
    carer = await harness.createKey(org.orgId, ['people:read', 'people:write', 'people:safeguarding', 'audit:read'], 'admin', { safeguarding: true });
    const staff = await harness.createKey(org.orgId, ['people:read', 'people:write'], 'staff');
    carerMcp = await harness.mcpClient(carer.apiKey);
    staffMcp = await harness.mcpClient(staff.apiKey);
    contactId = (await mcpCall(carerMcp, 'people_create_contact', { firstName: 'Vera', lastName: 'Confide' })).contact.id;
    plainContactId = (await mcpCall(carerMcp, 'people_create_contact', { firstName: 'Otto', lastName: 'Open' })).contact.id;
    await mcpCall(carerMcp, 'people_add_note', { contactId, content: 'Said hello after the service' });
    redNoteId = (await mcpCall(carerMcp, 'people_add_note', { contactId, content: 'Disclosed a marriage breakdown', confidentialityLevel: 'red' })).note.id;
    await mcpCall(carerMcp, 'people_add_note', { contactId: plainContactId, content: 'Helped with the coffee rota' });
  });

  afterAll(async () => {
    await carerMcp?.close();
    await staffMcp?.close();
    await harness?.close();
  });

  it('people_list_care_timeline marks restricted entries and records one access event per read', async () => {
    const { entries } = await mcpCall(carerMcp, 'people_list_care_timeline', { contactId });
    const restricted = entries.filter((entry: any) => entry.restricted);
    expect(restricted).toEqual([expect.objectContaining({ sourceKind: 'note', sourceId: redNoteId })]);
    expect(entries.filter((entry: any) => !entry.restricted).map((entry: any) => entry.kind).sort()).toEqual(['contact_created', 'note_added']);
    const events = await accessEvents(contactId);
    expect(events).toEqual([expect.objectContaining({
      tool: 'people_list_care_timeline', actor_user_id: carer.userId, target_type: 'contact', target_id: contactId, contact_ids: [contactId],
    })]);
    expect(events[0].changes).toEqual({ fields: { records: { after: [restricted[0].id] } } });
    expect(JSON.stringify(events)).not.toContain('marriage');
    await mcpCall(carerMcp, 'people_list_care_timeline', { contactId });
    expect(await accessEvents(contactId)).toHaveLength(2);
  });

  it('the profile and its timeline tab record their reads too, and audit_list_events shows them', async () => {
    const { profile } = await mcpCall(carerMcp, 'people_get_contact_profile', { contactId });
    expect(profile.restrictedEntryIds).toHaveLength(1);
    const tab = await mcpCall(carerMcp, 'people_get_contact_timeline', { contactId, include: ['care'] });
    expect(tab.restrictedEntryIds).toEqual(profile.restrictedEntryIds);
    const tools = (await accessEvents(contactId)).map((event) => event.tool);
    expect(tools.slice(-2)).toEqual(['people_get_contact_profile', 'people_get_contact_timeline']);
    const listed = await mcpCall(carerMcp, 'audit_list_events', { category: 'access', targetId: contactId });
    expect(listed.events.map((event: any) => event.action)).toEqual(expect.arrayContaining(['people.contact_profile.get', 'people.contact_timeline.get', 'people.care_timeline.list']));
    expect(listed.events.every((event: any) => event.actor.userId === carer.userId)).toBe(true);
  });

  it('a read that showed nothing restricted leaves no event', async () => {
    const before = (await accessEvents(contactId)).length;
    const staffView = await mcpCall(staffMcp, 'people_list_care_timeline', { contactId });
    expect(staffView.entries.every((entry: any) => !entry.restricted)).toBe(true);
    expect((await mcpCall(staffMcp, 'people_get_contact_profile', { contactId })).profile.restrictedEntryIds).toEqual([]);
    await mcpCall(staffMcp, 'people_get_contact_timeline', { contactId });
    expect(await accessEvents(contactId)).toHaveLength(before);
    await mcpCall(carerMcp, 'people_list_care_timeline', { contactId: plainContactId });
    await mcpCall(carerMcp, 'people_get_contact_profile', { contactId: plainContactId });
    expect(await accessEvents(plainContactId)).toEqual([]);
  });

  it('the recent activities feed across people records restricted entries it showed, and only those', async () => {
    const { activities } = await mcpCall(carerMcp, 'people_list_recent_activities', { limit: 50 });
    const restricted = activities.filter((activity: any) => activity.restricted);
    expect(restricted).toHaveLength(1);
    expect(restricted[0].contactId).toBe(contactId);
    const events = await accessEvents('recent_activities');
    expect(events).toEqual([expect.objectContaining({ tool: 'people_list_recent_activities', actor_user_id: carer.userId, target_type: 'care_timeline' })]);
    expect(events[0].changes).toEqual({ fields: { records: { after: [restricted[0].id] } } });
    // A caller without people:safeguarding sees no restricted entry, and leaves no event.
    const staffFeed = (await mcpCall(staffMcp, 'people_list_recent_activities', { limit: 50 })).activities;
    expect(staffFeed.some((activity: any) => activity.restricted)).toBe(false);
    expect(await accessEvents('recent_activities')).toHaveLength(1);
  });
});
