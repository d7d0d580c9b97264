import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { HOSTILE_TEXT, openWidgetSuite, type WidgetHost, type WidgetSuite } from '../../../test/helpers/widget-host';

/** The contact profile and the CRM chart rendered in headless Chromium by a minimal MCP Apps host, from the tools' real results. */
describe('people dashboard widgets in headless Chromium', () => {
  let suite: WidgetSuite;
  let harness: Harness;
  let org: TestOrg;
  let host: WidgetHost;

  beforeAll(async () => {
    suite = await openWidgetSuite('Profile Parish');
    ({ harness, org, host } = suite);
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('shows a profile\'s details, teams and household, user text as text', async () => {
    const ann = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Ann', lastName: HOSTILE_TEXT, email: 'ann@example.org', membershipStatus: 'member' })).contact.id;
    const bob = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Bob', lastName: 'Spouse' })).contact.id;
    await harness.call(org.apiKey, 'people_add_family_relationship', { contactId: ann, relatedContactId: bob, relationship: 'husband' });
    const group = (await harness.call(org.apiKey, 'people_create_crm_group', { name: 'Flower team' })).group.id;
    await harness.call(org.apiKey, 'people_add_crm_group_member', { groupId: group, contactId: ann, role: 'Leader' });

    const { frame, result } = await host.callAndShow('people_get_contact_profile', { contactId: ann });
    const profile = result.structuredContent.profile;
    await expect(frame.locator('h1').textContent()).resolves.toBe(profile.contact.displayName);
    await expect(frame.locator(`article[data-id="${ann}"]`).count()).resolves.toBe(1);
    await expect(frame.locator('section[aria-label="Teams"] li').allTextContents()).resolves.toEqual(['Flower team (Leader)']);
    await expect(frame.locator('section[aria-label="Family"] li').allTextContents()).resolves.toEqual(['Bob Spouse (husband)']);
    await expect(frame.locator('dl').textContent()).resolves.toContain('ann@example.org');
    expect(host.errors).toEqual([]);
    await expect(frame.locator('img, b').count()).resolves.toBe(0);
  });

  it('draws the CRM chart from its structured series: a bar per day for each series', async () => {
    const { frame, result } = await host.callAndShow('people_get_crm_analytics_chart', {});
    const series = result.structuredContent.series;
    await expect(frame.locator('section.series').count()).resolves.toBe(series.length);
    const added = series.find((s: any) => s.key === 'newContacts');
    const bars = frame.locator('section[data-series="newContacts"] .bar');
    await expect(bars.count()).resolves.toBe(7);
    await expect(bars.last().getAttribute('data-value')).resolves.toBe(String(added.points[6].value));
    expect(added.points[6].value).toBeGreaterThanOrEqual(2);
    // The tallest bar is the busiest day, drawn through the CSS object model (no style attributes under the page's policy).
    const heights = await bars.evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).getBoundingClientRect().height));
    expect(Math.max(...heights)).toBe(heights[6]);
    expect(heights[6]).toBeGreaterThan(heights[0]!);
    expect(host.errors).toEqual([]);
  });
});
