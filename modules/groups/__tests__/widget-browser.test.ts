import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { dayFromToday } from '../../../test/helpers/mcp-calls';
import { HOSTILE_TEXT, openWidgetSuite, type WidgetHost, type WidgetSuite } from '../../../test/helpers/widget-host';

const HOSTILE = HOSTILE_TEXT;

/** The small group card rendered in headless Chromium by a minimal MCP Apps host, from groups_get's real result. */
describe('groups: the small group card in headless Chromium', () => {
  let suite: WidgetSuite;
  let harness: Harness;
  let org: TestOrg;
  let host: WidgetHost;

  beforeAll(async () => {
    suite = await openWidgetSuite();
    ({ harness, org, host } = suite);
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('shows groups_get\'s group, roster, waiting requests and meetings, user text as text', async () => {
    const person = async (firstName: string, lastName: string) => (await harness.call(org.apiKey, 'people_create_contact', { firstName, lastName })).contact.id as string;
    const leader = await person('Lena', 'Leader');
    const member = await person('Max', HOSTILE);
    const asking = await person('Ava', 'Asking');
    const group = (await harness.call(org.apiKey, 'groups_create', {
      name: `Home group ${HOSTILE}`, type: 'Home group', scheduleText: 'Tuesdays 7:30pm', address: '1 Church Lane', memberLimit: 8, leaderContactId: leader,
    })).group.id;
    await harness.call(org.apiKey, 'groups_add_member', { groupId: group, contactId: member });
    await harness.call(org.apiKey, 'groups_request_to_join', { groupId: group, contactId: asking });
    const past = (await harness.call(org.apiKey, 'groups_schedule_meeting', { groupId: group, startDate: dayFromToday(-7), startTime: '19:30' })).meetings[0].id;
    await harness.call(org.apiKey, 'groups_record_attendance', { meetingId: past, present: [member], visitors: [{ name: 'Vic Visitor' }] });
    await harness.call(org.apiKey, 'groups_schedule_meeting', { groupId: group, startDate: dayFromToday(7), startTime: '19:30' });

    const { frame, result } = await host.callAndShow('groups_get', { groupId: group });
    const shown = result.structuredContent;
    await expect(frame.locator('h1').textContent()).resolves.toBe(shown.group.name);
    await expect(frame.locator(`article[data-id="${group}"]`).count()).resolves.toBe(1);
    const details = await frame.locator('dl').textContent();
    expect(details).toContain('Tuesdays 7:30pm');
    expect(details).toContain('1 Church Lane');
    expect(details).toContain('7 of 8 places left');
    await expect(frame.locator('.roster li').allTextContents()).resolves.toEqual(['Lena Leader (leader)', `Max ${HOSTILE}`]);
    await expect(frame.locator('article').textContent()).resolves.toContain('Ava Asking');
    await expect(frame.locator('article').textContent()).resolves.toContain('1 present, 1 visitor(s)');
    expect(host.errors).toEqual([]);
    await expect(frame.locator('img, b').count()).resolves.toBe(0);
  });
});
