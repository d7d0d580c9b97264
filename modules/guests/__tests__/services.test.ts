import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { DAYTIME_ZONES, daytimeZone } from '../../../test/helpers/service-times';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * The guests module's services over MCP: today's services and a range come from the schedule's
 * instances in the organisation's zone; a duplicated service is a one-off schedule instance; a key
 * with guests scopes only can read services but not the schedule's own tools.
 */
describe('guests: services from the schedule', () => {
  let harness: Harness;
  let org: TestOrg;
  let owner: McpClient;
  let guests: McpClient;
  let seriesId: string;
  let instances: any[];

  // Not London (the default zone, which would not show the zone is the series'), and a zone where it is day
  // now, so today's 23:50 service is still ahead and no step crosses midnight, whenever the test runs.
  const ZONE = daytimeZone(DAYTIME_ZONES.filter((zone) => zone !== 'Europe/London'));
  const local = (days = 0) => DateTime.now().setZone(ZONE).plus({ days }).toISODate()!;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Grace Chapel' });
    owner = await harness.mcpClient(org.apiKey);
    const key = await harness.createKey(org.orgId, ['guests:read', 'guests:write'], 'staff');
    guests = await harness.mcpClient(key.apiKey);
    const created = await mcpCall(owner, 'schedule_create_series', {
      title: 'Daily vespers', rrule: 'FREQ=DAILY', startDate: local(), startTime: '23:50', durationMinutes: 40, timeZone: ZONE, locationLabel: 'Chapel',
    });
    seriesId = created.series.id;
    instances = (await mcpCall(owner, 'schedule_list_upcoming_instances', { seriesId, from: local(), days: 10 })).instances;
  });

  afterAll(async () => {
    await guests?.close();
    await owner?.close();
    await harness?.close();
  });

  it('lists today\'s services in the zone the organisation\'s series use', async () => {
    const today = await mcpCall(guests, 'guests_list_services_today', {});
    expect(today).toMatchObject({ date: local(), timeZone: ZONE });
    expect(today.services).toHaveLength(1);
    expect(today.services[0]).toMatchObject({ seriesId, localDate: local(), localStartTime: '23:50', locationLabel: 'Chapel', status: 'scheduled' });
  });

  it('lists services on local dates in a range, inclusive, cancelled ones only when asked', async () => {
    const range = await mcpCall(guests, 'guests_list_services', { from: local(1), to: local(3) });
    expect(range.services.map((service: any) => service.localDate)).toEqual([local(1), local(2), local(3)]);
    const second = range.services[1];
    await mcpCall(owner, 'schedule_cancel_instance', { instanceId: second.id, reason: 'Snow' });
    expect((await mcpCall(guests, 'guests_list_services', { from: local(1), to: local(3) })).services.map((s: any) => s.id)).not.toContain(second.id);
    const withCancelled = await mcpCall(guests, 'guests_list_services', { from: local(1), to: local(3), includeCancelled: true });
    expect(withCancelled.services.find((s: any) => s.id === second.id)).toMatchObject({ status: 'cancelled', cancelReason: 'Snow' });
  });

  it('duplicates a service as a one-off instance at a new local date and time', async () => {
    const { service, copiedFrom } = await mcpCall(guests, 'guests_duplicate_service', {
      instanceId: instances[0].id, localDate: local(2), localStartTime: '16:00', title: 'Extra vespers',
    });
    expect(copiedFrom).toBe(instances[0].id);
    expect(service).toMatchObject({ seriesId, title: 'Extra vespers', localDate: local(2), localStartTime: '16:00', timeZone: ZONE, oneOff: true, originalStartsAt: null, locationLabel: 'Chapel' });
    expect(Date.parse(service.endsAt) - Date.parse(service.startsAt)).toBe(40 * 60_000);
    const day = await mcpCall(guests, 'guests_list_services', { from: local(2), to: local(2), includeCancelled: true });
    expect(day.services.map((s: any) => s.title)).toEqual(['Extra vespers', 'Daily vespers']);
    // The series' own changes leave the one-off alone, and the job keeps it.
    await mcpCall(owner, 'schedule_update_series', { seriesId, scope: 'all', changes: { title: 'Evening vespers' } });
    await harness.runJob('schedule.materialise_instances', { orgId: org.orgId });
    expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: service.id })).instance).toMatchObject({ title: 'Extra vespers', oneOff: true });
  });

  it('refuses bad input clearly', async () => {
    expect((await mcpRefusal(guests, 'guests_list_services_today', { timeZone: 'Nowhere/Atlantis' })).issues[0].path).toBe('timeZone');
    expect((await mcpRefusal(guests, 'guests_list_services', { from: local(3), to: local(1) })).code).toBe('validation_failed');
    expect((await mcpRefusal(guests, 'guests_list_services', { from: local(0), to: local(200) })).code).toBe('validation_failed');
    expect((await mcpRefusal(guests, 'guests_duplicate_service', { instanceId: instances[0].id, localDate: local(-2), localStartTime: '10:00' })).code).toBe('validation_failed');
    expect((await mcpRefusal(guests, 'guests_duplicate_service', { instanceId: instances[0].id, localDate: local(2), localStartTime: '25:00' })).code).toBe('validation_failed');
    expect((await mcpRefusal(guests, 'guests_duplicate_service', { instanceId: '00000000-0000-4000-8000-000000000000', localDate: local(2), localStartTime: '10:00' })).code).toBe('not_found');
  });

  it('a guests-only key cannot use the schedule\'s own tools', async () => {
    const error = await mcpRefusal(guests, 'schedule_cancel_instance', { instanceId: instances[3].id });
    expect(['insufficient_scope', 'unknown_tool']).toContain(error.code);
  });
});
