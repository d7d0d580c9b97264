import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall } from '../../../test/helpers/mcp-calls';
import { startSmtpServer, type TestSmtpServer } from '../../../test/helpers/message-servers';
import { blockoutToken } from '../links';
import { eventually } from '../../../test/helpers/sandbox-stack';

/**
 * A volunteer's own blockout link, end to end on a stack of its own with a real mail server: the
 * rota request carries the link (and runsheet_get_blockout_link over MCP gives it to staff); the page
 * shows the person's dates escaped; adding dates from it gives up the place they held and starts the
 * substitute search (the substitute is emailed an offer); removing works on their own dates only; a
 * forged, expired or cross-site request, one without the page's form token and a flood from one
 * address are refused with nothing written.
 */
jest.setTimeout(180_000);

describe('runsheet: a volunteer\'s own blockout link', () => {
  let harness: Harness;
  let smtp: TestSmtpServer;
  let org: TestOrg;
  let mcp: McpClient;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    // Its own stack: the mail server's address and the page's rate limit are read from this process's environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'St Brigid', planCode: 'growth' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await smtp?.close();
    delete process.env.SMTP_HOST;
    delete process.env.SMTP_PORT;
    delete process.env.RUNSHEET_PUBLIC_POSTS_PER_MINUTE;
  });

  const call = (tool: string, args: Record<string, unknown>) => mcpCall(mcp, tool, args);
  const contact = async (firstName: string, lastName = 'Vol') => (await call('people_create_contact', { firstName, lastName, email: `${firstName.toLowerCase()}.vol@example.org` })).contact.id as string;
  const mailTo = (address: string) => smtp.delivered.filter((mail) => mail.to.includes(address));
  const decoded = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const page = (path: string) => fetch(`${harness.url}${path}`);
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) => fetch(`${harness.url}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form).toString(),
  });
  const formTokenOf = (html: string) => /name="_token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const blockoutsOf = async (contactId: string) => (await call('runsheet_get_blockout_link', { contactId })).upcoming as Array<{ id: string; startsOn: string; endsOn: string; reason: string | null }>;

  it('lets a volunteer block out dates from their own link, giving up their place to a substitute search', async () => {
    const ada = await contact('Ada', '<b>Lovelace</b>');
    const ben = await contact('Ben');
    const { serviceType } = await call('runsheet_create_service_type', { name: 'Evening worship' });
    const team = (await call('runsheet_create_team', { name: 'Projection', autoReplace: true, offerExpiresSeconds: 600 })).teamId;
    const desk = (await call('runsheet_add_position', { teamId: team, name: 'Slides' })).positionId;
    for (const member of [ada, ben]) await call('runsheet_add_team_member', { positionId: desk, contactId: member });
    const date = DateTime.now().plus({ days: 12 }).toISODate()!;
    const plan = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date, times: [{ kind: 'service', startTime: '18:30', durationMinutes: 60 }] })).plan;
    await call('runsheet_set_needed_positions', { planId: plan.id, positions: [{ positionId: desk, quantity: 1 }] });
    await call('runsheet_schedule_person', { planId: plan.id, positionId: desk, contactId: ada });
    await call('runsheet_record_blockout', { contactId: ada, startsOn: DateTime.now().plus({ days: 40 }).toISODate(), reason: '<script>alert(1)</script>' });
    await call('runsheet_send_requests', { planId: plan.id });

    // The rota request carries Ada's blockout link; staff get one from the tool.
    const request = await eventually(async () => mailTo('ada.vol@example.org'), (mails) => mails.length === 1, 60_000);
    const path = /(\/runsheet\/blockouts\/[A-Za-z0-9._-]+)/.exec(decoded(request[0].raw))?.[1];
    expect(path).toBeDefined();
    const fromTool = await call('runsheet_get_blockout_link', { contactId: ada });
    expect(fromTool).toMatchObject({ contactId: ada, url: expect.stringContaining('/runsheet/blockouts/') });
    expect(fromTool.upcoming).toEqual([expect.objectContaining({ reason: '<script>alert(1)</script>' })]);

    // The page: escaped, framed by a strict policy, changing nothing.
    const shown = await page(path!);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await shown.text();
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;b&gt;Lovelace&lt;/b&gt;');
    const formToken = formTokenOf(html);
    expect(formToken).not.toBe('');

    // Refusals change nothing.
    const add = { action: 'add', startsOn: date, endsOn: date, reason: 'Away' };
    expect((await page(`${path!.slice(0, -3)}xyz`)).status).toBe(404);
    const [orgPart, contactPart] = path!.split('/').pop()!.split('.');
    expect([orgPart, contactPart]).toEqual([org.orgId, ada]);
    const expired = blockoutToken(org.orgId, contactPart!, new Date(Date.now() - 1000));
    expect((await page(`/runsheet/blockouts/${expired}`)).status).toBe(404);
    expect((await post(`/runsheet/blockouts/${expired}`, { ...add, _token: formToken })).status).toBe(404);
    expect((await post(path!, add)).headers.get('x-steward-refusal')).toBe('bad_token');
    expect((await post(path!, { ...add, _token: formToken }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(path!, { ...add, _token: formToken }, { 'sec-fetch-site': 'cross-site' })).headers.get('x-steward-refusal')).toBe('cross_site');
    expect((await fetch(`${harness.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...add, _token: formToken }) })).status).toBe(415);
    const backwards = await post(path!, { ...add, startsOn: date, endsOn: DateTime.fromISO(date).minus({ days: 1 }).toISODate()!, _token: formToken });
    expect(backwards.status).toBe(400);
    expect(await backwards.text()).toContain('The last date is before the first.');
    expect((await post(path!, { ...add, startsOn: '2020-01-01', endsOn: '2020-01-02', _token: formToken })).status).toBe(400);
    expect(await blockoutsOf(ada)).toHaveLength(1);
    expect((await call('runsheet_get_plan', { planId: plan.id })).plan.people).toEqual([expect.objectContaining({ contactId: ada, status: 'unconfirmed' })]);

    // Adding the plan's date gives up Ada's place; the search offers it to Ben.
    const saved = await post(path!, { ...add, _token: formToken });
    expect(saved.status).toBe(200);
    expect(await saved.text()).toMatch(/You were down to serve 1 time\(s\) then/);
    expect((await blockoutsOf(ada)).map((b) => [b.startsOn, b.endsOn, b.reason])).toContainEqual([date, date, 'Away']);
    const after = (await call('runsheet_get_plan', { planId: plan.id })).plan;
    expect(after.people).toEqual([expect.objectContaining({ contactId: ada, status: 'declined', declineReason: 'Blocked out' })]);
    expect(after.substitutions).toEqual([expect.objectContaining({ cause: 'blockout' })]);
    await eventually(async () => mailTo('ben.vol@example.org'), (mails) => mails.length === 1, 60_000);

    // Removing: her own dates only; someone else's blockout id is not found and stays.
    const bensBlockout = (await call('runsheet_record_blockout', { contactId: ben, startsOn: DateTime.now().plus({ days: 50 }).toISODate() })).blockoutId;
    const foreign = await post(path!, { action: 'remove', blockoutId: bensBlockout, _token: formToken });
    expect(foreign.status).toBe(404);
    expect((await blockoutsOf(ben)).map((b) => b.id)).toEqual([bensBlockout]);
    const scripted = (await blockoutsOf(ada)).find((b) => b.reason === '<script>alert(1)</script>')!;
    const removed = await post(path!, { action: 'remove', blockoutId: scripted.id, _token: formToken });
    expect(removed.status).toBe(200);
    expect((await blockoutsOf(ada)).map((b) => b.reason)).toEqual(['Away']);

    // A flood from one address is refused before anything is read.
    process.env.RUNSHEET_PUBLIC_POSTS_PER_MINUTE = '3';
    const flood = await post(path!, { ...add, startsOn: DateTime.now().plus({ days: 60 }).toISODate()!, endsOn: '', _token: formToken });
    expect(flood.status).toBe(429);
    expect(flood.headers.get('x-steward-refusal')).toBe('rate_limited');
    expect((await blockoutsOf(ada)).map((b) => b.reason)).toEqual(['Away']);
  });
});
