import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { parse } from 'csv-parse/sync';
import { withTenantTransaction } from '../../../db/pool';
import { lifeEventCounts, listOpenSupportEvents } from '../pastoral/life-events/public';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { dayFromToday, mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * Life events over MCP (the SDK's client against the real server, worker, Postgres and Temporal):
 * recording, the celebrate/support flow, a drafted message that waits for approval, the radar,
 * CSV and iCalendar exports, removal's timeline entry, erasure, bad input that changes nothing,
 * and the leak matrix for a key without people:safeguarding.
 */

const MISSING = '00000000-0000-4000-8000-000000000000';
/** Words only the restricted events hold: none may reach a caller without safeguarding, anywhere. */
const SECRET_TITLE = 'Loss of her brother Quillon';
const SECRET_ILLNESS = 'Diagnosis Zephyrine';

describe('life events over MCP', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let staff: McpClient;
  let otherMcp: McpClient;
  let anna: string;
  let ben: string;
  const events: Record<string, string> = {};

  const contact = async (firstName: string, client = mcp) =>
    (await mcpCall(client, 'people_create_contact', { firstName, lastName: 'Lifeevent', email: `${firstName.toLowerCase()}-${Math.random().toString(36).slice(2)}@example.org` })).contact.id as string;
  const record = async (args: Record<string, unknown>, client = mcp) => mcpCall(client, 'people_record_life_event', args);
  const lifeEventRows = async (orgId: string) => (await harness.pool.query(
    'SELECT e.*, (SELECT count(*)::int FROM pastoral_grief_touchpoints g WHERE g.life_event_id = e.id) AS touchpoints FROM pastoral_life_events e WHERE org_id = $1 ORDER BY id', [orgId])).rows;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Life Events Chapel' });
    other = await harness.createOrg({ name: 'Elsewhere Church' });
    mcp = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
    const staffKey = await harness.createKey(org.orgId, ['people:read', 'people:write', 'platform:read', 'platform:write'], 'staff', { safeguarding: false });
    staff = await harness.mcpClient(staffKey.apiKey);
    anna = await contact('Anna');
    ben = await contact('Ben');

    events.wedding = (await record({ contactId: anna, type: 'marriage', title: 'Anna and Joe married', eventDate: dayFromToday(10), shareWithCommunity: true })).lifeEvent.id;
    events.job = (await record({ contactId: anna, type: 'job_loss', title: 'Made redundant', eventDate: dayFromToday(-1) })).lifeEvent.id;
    // Two years ago, so its second anniversary is in five days.
    events.oldLoss = (await record({ contactId: ben, type: 'bereavement', title: 'Loss of his mother', eventDate: isoYearsAgo(2, 5) })).lifeEvent.id;
    events.secretLoss = (await record({ contactId: ben, type: 'bereavement', title: SECRET_TITLE, details: 'Sudden', eventDate: isoYearsAgo(1, 3), privacy: 'private' })).lifeEvent.id;
    events.secretIllness = (await record({ contactId: anna, type: 'illness', title: SECRET_ILLNESS, confidentialityLevel: 'amber' })).lifeEvent.id;
  }, 60_000);

  afterAll(async () => {
    for (const client of [mcp, staff, otherMcp]) await client?.close();
    await harness?.close();
  });

  /** YYYY-MM-DD, `years` years ago plus `daysAhead` days. */
  function isoYearsAgo(years: number, daysAhead: number): string {
    const date = new Date(Date.now() + daysAhead * 86_400_000);
    date.setUTCFullYear(date.getUTCFullYear() - years);
    return date.toISOString().slice(0, 10);
  }

  it('records events with the intent their type implies and puts them on the care timeline', async () => {
    const all = await mcpCall(mcp, 'people_list_all_life_events', { limit: 50 });
    const byId = Object.fromEntries(all.lifeEvents.map((event: any) => [event.id, event]));
    expect(byId[events.wedding]).toMatchObject({ type: 'marriage', intent: 'celebrate', status: 'new', contactName: 'Anna Lifeevent', shareWithCommunity: true, eventDate: dayFromToday(10) });
    expect(byId[events.job]).toMatchObject({ type: 'job_loss', intent: 'support' });
    expect(byId[events.secretLoss]).toMatchObject({ privacy: 'private', confidentialityLevel: 'green', details: 'Sudden' });
    expect(all.total).toBe(5);

    const timeline = await mcpCall(mcp, 'people_list_care_timeline', { contactId: anna });
    const kinds = timeline.entries.filter((entry: any) => entry.sourceKind === 'life_event').map((entry: any) => entry.summary);
    expect(kinds).toEqual(expect.arrayContaining(['Life event (marriage): Anna and Joe married', `Life event (illness): ${SECRET_ILLNESS}`]));
  });

  it('tells a contact\'s story oldest first, each bereavement with its grief-care touchpoints', async () => {
    const story = await mcpCall(mcp, 'people_get_contact_life_events_timeline', { contactId: ben });
    expect(story.entries.map((entry: any) => entry.lifeEvent.id)).toEqual([events.oldLoss, events.secretLoss]);
    expect(story.total).toBe(2);
    for (const entry of story.entries) {
      expect(entry.touchpoints).toHaveLength(5);
      expect(entry.touchpoints.every((t: any) => t.lifeEventId === entry.lifeEvent.id)).toBe(true);
    }
    // Heard of two years late: every step but the latest passed one was skipped.
    expect(story.entries[0].touchpoints.slice(0, 4).map((t: any) => t.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
  });

  it('a UK organisation writes dates day first; the same day arrives either way', async () => {
    const [day, month, year] = [dayFromToday(-3).slice(8, 10), dayFromToday(-3).slice(5, 7), dayFromToday(-3).slice(0, 4)];
    const recorded = await record({ contactId: ben, type: 'new_job', title: 'Started at the bakery', eventDate: `${day}/${month}/${year}` });
    expect(recorded.lifeEvent.eventDate).toBe(dayFromToday(-3));
    expect(recorded.griefPlan).toBeNull();
    await mcpCall(mcp, 'people_remove_life_event', { lifeEventId: recorded.lifeEvent.id });
  });

  it('a key without people:safeguarding never sees a restricted event: lists, counts, timelines, radar, exports, messages', async () => {
    const secrets = [SECRET_TITLE, SECRET_ILLNESS, 'Sudden', events.secretLoss, events.secretIllness];
    const leaks = (value: unknown) => secrets.filter((secret) => JSON.stringify(value).includes(secret));

    const all = await mcpCall(staff, 'people_list_all_life_events', { limit: 50 });
    expect(all.total).toBe(3);
    expect(all.lifeEvents.map((event: any) => event.id).sort()).toEqual([events.wedding, events.job, events.oldLoss].sort());
    const bereavements = await mcpCall(staff, 'people_list_all_life_events', { type: 'bereavement' });
    expect(bereavements.total).toBe(1);
    const perContact = await mcpCall(staff, 'people_list_pastoral_life_events', { contactId: ben });
    expect(perContact.total).toBe(1);
    const story = await mcpCall(staff, 'people_get_contact_life_events_timeline', { contactId: ben });
    const timelineBen = await mcpCall(staff, 'people_list_care_timeline', { contactId: ben });
    const timelineAnna = await mcpCall(staff, 'people_list_care_timeline', { contactId: anna });
    const radar = await mcpCall(staff, 'people_get_life_events_radar', { daysAhead: 366, unattendedAfterDays: 0, limit: 200 });
    const touchpoints = await mcpCall(staff, 'people_list_grief_touchpoints', { status: 'all', limit: 200 });
    const csv = await mcpCall(staff, 'people_export_life_events_report', {});
    const ics = await mcpCall(staff, 'people_export_life_events_calendar', {});
    for (const result of [all, perContact, story, timelineBen, timelineAnna, radar, touchpoints, csv, ics]) expect(leaks(result)).toEqual([]);
    expect(csv.rowCount).toBe(3);
    expect(ics.ics.match(/BEGIN:VEVENT/g)).toHaveLength(3 + touchpoints.touchpoints.filter((t: any) => ['pending', 'due'].includes(t.status)).length);
    // The radar still shows what the key may see: the visible bereavement's anniversary.
    expect(radar.items.some((item: any) => item.reason === 'anniversary' && item.lifeEventId === events.oldLoss)).toBe(true);
    expect(radar.items.some((item: any) => item.lifeEventId === events.secretLoss)).toBe(false);

    // Every call naming a restricted event answers exactly as the same call naming a missing id does.
    for (const [tool, args] of [
      ['people_generate_life_event_message', { lifeEventId: events.secretLoss }],
      ['people_set_life_event_status', { lifeEventId: events.secretIllness, status: 'resolved' }],
      ['people_update_life_event', { lifeEventId: events.secretLoss, title: 'Changed' }],
      ['people_remove_life_event', { lifeEventId: events.secretLoss }],
      ['people_celebrate_life_event', { lifeEventId: events.secretIllness }],
      ['people_list_grief_touchpoints', { lifeEventId: events.secretLoss }],
    ] as const) {
      const refused = await mcpRefusal(staff, tool, args);
      const missing = await mcpRefusal(staff, tool, { ...args, lifeEventId: MISSING });
      expect(refused.code).toBe('not_found');
      expect(JSON.parse(JSON.stringify(refused).replaceAll(args.lifeEventId, MISSING))).toEqual(missing);
    }
    const secretTouchpoint = (await mcpCall(mcp, 'people_list_grief_touchpoints', { lifeEventId: events.secretLoss, status: 'all' })).touchpoints[0];
    expect((await mcpRefusal(staff, 'people_complete_grief_touchpoint', { touchpointId: secretTouchpoint.id })).code).toBe('not_found');
    // Nothing reached the outreach queue, and the restricted events are untouched.
    expect((await mcpCall(mcp, 'people_list_pending_outreach', { status: 'all' })).items).toHaveLength(0);
    const rows = await lifeEventRows(org.orgId);
    expect(rows.find((row) => row.id === events.secretIllness).status).toBe('new');
    expect(rows.find((row) => row.id === events.secretLoss).title).toBe(SECRET_TITLE);

    // With safeguarding the same reads include them.
    const full = await mcpCall(mcp, 'people_list_all_life_events', { limit: 50 });
    expect(full.total).toBe(5);
    const fullTimeline = await mcpCall(mcp, 'people_list_care_timeline', { contactId: ben });
    expect(JSON.stringify(fullTimeline)).toContain(SECRET_TITLE);
    expect((await mcpCall(mcp, 'people_export_life_events_report', {})).csv).toContain(SECRET_TITLE);
  });

  it('the radar says what is coming up and what is unattended, and why', async () => {
    const radar = await mcpCall(mcp, 'people_get_life_events_radar', { daysAhead: 30, unattendedAfterDays: 0 });
    const find = (reason: string, id: string) => radar.items.find((item: any) => item.reason === reason && item.lifeEventId === id);
    expect(find('upcoming', events.wedding)).toMatchObject({ date: dayFromToday(10), why: expect.stringContaining('marriage') });
    expect(find('anniversary', events.oldLoss)).toMatchObject({ date: dayFromToday(5), why: expect.stringContaining('2nd anniversary') });
    expect(find('anniversary', events.secretLoss)).toMatchObject({ date: dayFromToday(3), why: expect.stringContaining('1st anniversary') });
    // The recent restricted bereavement's six-month touchpoint has passed and is due; its anniversary touchpoint is three days ahead.
    expect(find('touchpoint_upcoming', events.secretLoss)).toMatchObject({ date: dayFromToday(3), why: expect.stringContaining('First anniversary') });
    expect(find('unattended', events.job)).toMatchObject({ why: expect.stringContaining('nobody has been in touch') });
    // A visible note after the event is pastoral contact: the event is no longer unattended.
    await mcpCall(mcp, 'people_add_note', { contactId: anna, content: 'Rang Anna about the job; coffee on Friday' });
    const after = await mcpCall(mcp, 'people_get_life_events_radar', { daysAhead: 30, unattendedAfterDays: 0 });
    expect(after.items.some((item: any) => item.reason === 'unattended' && item.lifeEventId === events.job)).toBe(false);
    // A private note is contact only in the view that may see it: the staff key's radar still shows the
    // event as unattended (else its absence would tell that a private note exists).
    const carol = await contact('Carol');
    const illness = await record({ contactId: carol, type: 'illness', title: 'Flu' });
    await mcpCall(mcp, 'people_add_note', { contactId: carol, content: 'Private conversation with Carol', privacy: 'private' });
    const unattended = (view: any) => view.items.some((item: any) => item.reason === 'unattended' && item.lifeEventId === illness.lifeEvent.id);
    expect(unattended(await mcpCall(mcp, 'people_get_life_events_radar', { unattendedAfterDays: 0 }))).toBe(false);
    expect(unattended(await mcpCall(staff, 'people_get_life_events_radar', { unattendedAfterDays: 0 }))).toBe(true);
    await mcpCall(mcp, 'people_remove_life_event', { lifeEventId: illness.lifeEvent.id });
    // Not yet old enough to count as unattended with the default three days.
    const byDefault = await mcpCall(mcp, 'people_get_life_events_radar', {});
    expect(byDefault.items.some((item: any) => item.reason === 'unattended')).toBe(false);
  });

  it('the readers other parts use (dashboard counts, care-prediction signals) keep the same rule', async () => {
    const read = <T>(work: (db: any) => Promise<T>) => withTenantTransaction(harness.pool, org.orgId, (db) => work(db));
    // Each bereavement's plan surfaces its latest passed touchpoint at once (the live workflow); wait for both.
    for (let tries = 0; (await harness.pool.query("SELECT 1 FROM pastoral_grief_touchpoints WHERE org_id = $1 AND status = 'due'", [org.orgId])).rowCount! < 2; tries += 1) {
      if (tries > 100) throw new Error('the grief plans did not surface their touchpoints');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const hidden = await read((db) => lifeEventCounts(db, org.orgId, false));
    const full = await read((db) => lifeEventCounts(db, org.orgId, true));
    // Visible: the wedding, the job loss and the old bereavement; restricted: a bereavement and an illness.
    expect(hidden).toEqual({ open: 3, openSupport: 2, upcoming30Days: 1, touchpointsDue: 1 });
    // The restricted illness is dated today, which the next thirty days include.
    expect(full).toEqual({ open: 5, openSupport: 4, upcoming30Days: 2, touchpointsDue: 2 });
    const signals = await read((db) => listOpenSupportEvents(db, org.orgId, false, { withinDays: 90, limit: 50 }));
    expect(signals.map((signal) => signal.lifeEventId)).toEqual([events.job]);
    const allSignals = await read((db) => listOpenSupportEvents(db, org.orgId, true, { withinDays: 90, limit: 50 }));
    expect(allSignals.map((signal) => signal.lifeEventId).sort()).toEqual([events.job, events.secretIllness].sort());
  });

  it('another organisation\'s life event ids behave as missing and change nothing', async () => {
    const before = await lifeEventRows(org.orgId);
    for (const [tool, args] of [
      ['people_set_life_event_status', { lifeEventId: events.job, status: 'resolved' }],
      ['people_celebrate_life_event', { lifeEventId: events.wedding }],
      ['people_remove_life_event', { lifeEventId: events.job }],
      ['people_generate_life_event_message', { lifeEventId: events.wedding }],
      ['people_list_pastoral_life_events', { contactId: anna }],
      ['people_record_life_event', { contactId: anna, type: 'birth', title: 'Not theirs' }],
    ] as const) {
      expect((await mcpRefusal(otherMcp, tool, args)).code).toBe('not_found');
    }
    expect((await mcpCall(otherMcp, 'people_list_all_life_events', {})).total).toBe(0);
    expect(await lifeEventRows(org.orgId)).toEqual(before);
  });

  it('refuses bad input with a clear error and writes nothing', async () => {
    const before = await lifeEventRows(org.orgId);
    const unknownType = await mcpRefusal(mcp, 'people_record_life_event', { contactId: anna, type: 'promotion', title: 'x' });
    expect(unknownType.code).toBe('validation_failed');
    expect(JSON.stringify(unknownType.issues)).toContain('type');
    const badDate = await mcpRefusal(mcp, 'people_record_life_event', { contactId: anna, type: 'birth', title: 'Baby', eventDate: '31/02/2026' });
    expect(badDate).toMatchObject({ code: 'validation_failed', issues: [{ path: 'eventDate' }] });
    expect(badDate.hint).toContain('DD/MM/YYYY');
    const futureLoss = await mcpRefusal(mcp, 'people_record_life_event', { contactId: anna, type: 'bereavement', title: 'Loss', eventDate: dayFromToday(2) });
    expect(futureLoss.code).toBe('validation_failed');
    expect(futureLoss.message).toContain('future');
    const ancient = await mcpRefusal(mcp, 'people_record_life_event', { contactId: anna, type: 'birth', title: 'Baby', eventDate: '1850-01-01' });
    expect(ancient.code).toBe('validation_failed');
    const emptyTitle = await mcpRefusal(mcp, 'people_record_life_event', { contactId: anna, type: 'birth', title: '   ' });
    expect(emptyTitle.code).toBe('validation_failed');
    const unknownContact = await mcpRefusal(mcp, 'people_record_life_event', { contactId: MISSING, type: 'birth', title: 'Baby' });
    expect(unknownContact.code).toBe('not_found');
    const badStatus = await mcpRefusal(mcp, 'people_set_life_event_status', { lifeEventId: events.job, status: 'closed' });
    expect(badStatus.code).toBe('validation_failed');
    const sameStatus = await mcpRefusal(mcp, 'people_set_life_event_status', { lifeEventId: events.job, status: 'new' });
    expect(sameStatus.code).toBe('conflict');
    const backwards = await mcpRefusal(mcp, 'people_list_all_life_events', { from: '2026-05-01', to: '2026-04-01' });
    expect(backwards).toMatchObject({ code: 'validation_failed', issues: [{ path: 'from' }] });
    const nothing = await mcpRefusal(mcp, 'people_update_life_event', { lifeEventId: events.job });
    expect(nothing.code).toBe('validation_failed');
    const extra = await mcpRefusal(mcp, 'people_record_life_event', { contactId: anna, type: 'birth', title: 'Baby', colour: 'blue' });
    expect(extra.code).toBe('validation_failed');
    expect(await lifeEventRows(org.orgId)).toEqual(before);
  });

  it('celebrates a celebrate-intent event once, even when two people do it at the same moment; support events are not celebrated', async () => {
    const outcomes = await Promise.all([1, 2].map(() => mcp.callTool({ name: 'people_celebrate_life_event', arguments: { lifeEventId: events.wedding } })));
    const succeeded = outcomes.filter((outcome) => !outcome.isError);
    expect(succeeded).toHaveLength(1);
    const refused = JSON.parse((outcomes.find((outcome) => outcome.isError)!.content as any)[0].text).error;
    expect(refused.code).toBe('conflict');
    const [row] = (await harness.pool.query('SELECT celebrated_at, status FROM pastoral_life_events WHERE id = $1', [events.wedding])).rows;
    expect(row.celebrated_at).not.toBeNull();
    expect(row.status).toBe('acknowledged');
    expect((await mcpRefusal(mcp, 'people_celebrate_life_event', { lifeEventId: events.job })).code).toBe('conflict');
    const timeline = await mcpCall(mcp, 'people_list_care_timeline', { contactId: anna });
    expect(timeline.entries.filter((entry: any) => entry.kind === 'life_event_celebrated')).toHaveLength(1);
  });

  it('drafts a message as a pending_review outreach item; nothing is sent; a restricted event\'s draft names nothing about it', async () => {
    const drafted = await mcpCall(mcp, 'people_generate_life_event_message', { lifeEventId: events.job });
    expect(drafted.item).toMatchObject({ status: 'pending_review', contactId: anna, channel: 'email', source: 'manual', sentAt: null });
    expect(drafted.item.body).toContain('Dear Anna');
    expect(drafted.item.body).toContain('sorry to hear about your job');
    expect(drafted.item.reason).toContain('Made redundant');
    const queued = await mcpCall(staff, 'people_get_outreach_item', { outreachId: drafted.item.id });
    expect(queued.item.status).toBe('pending_review');
    // It waits in the same approval workflow as any queued message.
    expect((await harness.temporal.workflow.getHandle(`outreach-${drafted.item.id}`).describe()).status.name).toBe('RUNNING');

    const secret = await mcpCall(mcp, 'people_generate_life_event_message', { lifeEventId: events.secretIllness });
    expect(secret.item.status).toBe('pending_review');
    // Read by a key without safeguarding from the queue: nothing of the event is in it.
    const seenByStaff = await mcpCall(staff, 'people_list_pending_outreach', {});
    expect(JSON.stringify(seenByStaff)).not.toContain(SECRET_ILLNESS);
    expect(JSON.stringify(seenByStaff)).not.toMatch(/unwell|illness/i);
    const sent = await harness.pool.query("SELECT count(*)::int AS n FROM outreach_items WHERE org_id = $1 AND status <> 'pending_review'", [org.orgId]);
    expect(sent.rows[0].n).toBe(0);
    await mcpCall(mcp, 'people_decline_outreach', { outreachId: drafted.item.id, reason: 'test' }).catch(() => undefined);
  });

  it('exports a CSV a spreadsheet reads, and an iCalendar with yearly anniversaries', async () => {
    const formula = await record({ contactId: ben, type: 'other', title: '=HYPERLINK("http://x")' });
    const report = await mcpCall(mcp, 'people_export_life_events_report', { contactId: ben });
    const rows = parse(report.csv, { columns: true }) as Array<Record<string, string>>;
    expect(report.rowCount).toBe(rows.length);
    expect(rows.map((row) => row.Title).sort()).toEqual([SECRET_TITLE, "'=HYPERLINK(\"http://x\")", 'Loss of his mother'].sort());
    expect(rows.find((row) => row.Title === 'Loss of his mother')).toMatchObject({ Contact: 'Ben Lifeevent', Type: 'bereavement', Intent: 'support', 'Event date': isoYearsAgo(2, 5) });
    await mcpCall(mcp, 'people_remove_life_event', { lifeEventId: formula.lifeEvent.id });

    const calendar = await mcpCall(mcp, 'people_export_life_events_calendar', { type: 'bereavement', includeTouchpoints: false });
    expect(calendar.eventCount).toBe(2);
    expect(calendar.ics).toContain('BEGIN:VCALENDAR');
    expect(calendar.ics).toContain(`DTSTART;VALUE=DATE:${isoYearsAgo(2, 5).replace(/-/g, '')}`);
    expect(calendar.ics.match(/RRULE:FREQ=YEARLY/g)).toHaveLength(2);
    expect(calendar.ics).not.toContain('Sudden');
    const withTouchpoints = await mcpCall(mcp, 'people_export_life_events_calendar', { contactId: ben });
    expect(withTouchpoints.ics).toContain('Grief care (');
  });

  it('removing an event leaves a detail-free timeline entry, restricted with the event', async () => {
    const open = await record({ contactId: anna, type: 'moving', title: 'Moved to Leeds' });
    const hidden = await record({ contactId: anna, type: 'hospitalisation', title: 'Ward 9 stay', privacy: 'private' });
    await mcpCall(mcp, 'people_remove_life_event', { lifeEventId: open.lifeEvent.id });
    const removed = await mcpCall(mcp, 'people_remove_life_event', { lifeEventId: hidden.lifeEvent.id });
    expect(removed).toMatchObject({ restricted: true, griefPlan: null, removed: { type: 'hospitalisation' } });
    expect((await mcpRefusal(mcp, 'people_remove_life_event', { lifeEventId: hidden.lifeEvent.id })).code).toBe('not_found');

    const staffView = await mcpCall(staff, 'people_list_care_timeline', { contactId: anna });
    const removals = (view: any) => view.entries.filter((entry: any) => entry.kind === 'life_event_removed').map((entry: any) => entry.sourceId);
    expect(removals(staffView)).toEqual([open.lifeEvent.id]);
    expect(JSON.stringify(staffView)).not.toContain('Moved to Leeds');
    const fullView = await mcpCall(mcp, 'people_list_care_timeline', { contactId: anna });
    expect(removals(fullView).sort()).toEqual([open.lifeEvent.id, hidden.lifeEvent.id].sort());
    expect(JSON.stringify(fullView)).not.toContain('Ward 9 stay');
  });

  it('making an event private hides it and its timeline entries at once', async () => {
    const event = await record({ contactId: anna, type: 'surgery', title: 'Knee operation' });
    expect(JSON.stringify(await mcpCall(staff, 'people_list_care_timeline', { contactId: anna }))).toContain('Knee operation');
    const updated = await mcpCall(mcp, 'people_update_life_event', { lifeEventId: event.lifeEvent.id, confidentialityLevel: 'red' });
    expect(updated.changed).toEqual(['confidentialityLevel']);
    expect(updated.lifeEvent.confidentialityLevel).toBe('red');
    expect(Date.parse(updated.lifeEvent.updatedAt)).toBeGreaterThan(Date.parse(event.lifeEvent.updatedAt));
    expect(JSON.stringify(await mcpCall(staff, 'people_list_care_timeline', { contactId: anna }))).not.toContain('Knee operation');
    expect((await mcpRefusal(staff, 'people_update_life_event', { lifeEventId: event.lifeEvent.id, confidentialityLevel: 'green' })).code).toBe('not_found');
  });

  it('merging two records of one person moves the duplicate\'s life events and grief plan to the kept record', async () => {
    const kept = await contact('Mara');
    const duplicate = await contact('Mara');
    const loss = await record({ contactId: duplicate, type: 'bereavement', title: 'Loss of her aunt', eventDate: dayFromToday(-1) });
    const proposed = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId: kept, mergeContactId: duplicate, actionSummary: 'Merge Mara' });
    expect(proposed.body.error?.code).toBe('approval_required');
    const decided = await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId: proposed.body.error!.details.proposalId });
    expect(decided.execution.status).toBe('succeeded');
    const moved = await mcpCall(mcp, 'people_list_pastoral_life_events', { contactId: kept });
    expect(moved.lifeEvents.map((event: any) => event.id)).toEqual([loss.lifeEvent.id]);
    const touchpoints = await mcpCall(mcp, 'people_list_grief_touchpoints', { contactId: kept, status: 'all' });
    expect(touchpoints.touchpoints).toHaveLength(5);
    const timeline = await mcpCall(mcp, 'people_list_care_timeline', { contactId: kept });
    expect(timeline.entries.map((entry: any) => entry.summary)).toContain('Life event (bereavement): Loss of her aunt');
  });

  it('permanent erasure of the contact removes every life event, touchpoint and timeline entry', async () => {
    const person = await contact('Erin');
    const loss = await record({ contactId: person, type: 'bereavement', title: 'Loss of her father', eventDate: dayFromToday(-2) });
    await record({ contactId: person, type: 'birth', title: 'Baby born', privacy: 'private' });
    expect(loss.griefPlan.touchpoints).toHaveLength(5);
    await harness.call(org.apiKey, 'people_delete_contact', { contactId: person, permanent: true });
    const left = await harness.pool.query(`
      SELECT (SELECT count(*)::int FROM pastoral_life_events WHERE contact_id = $1) AS events,
        (SELECT count(*)::int FROM pastoral_grief_touchpoints WHERE life_event_id = $2) AS touchpoints,
        (SELECT count(*)::int FROM timeline_entries WHERE contact_id = $1) AS timeline`, [person, loss.lifeEvent.id]);
    expect(left.rows[0]).toEqual({ events: 0, touchpoints: 0, timeline: 0 });
  });
});
