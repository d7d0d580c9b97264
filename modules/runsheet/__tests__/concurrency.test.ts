import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall } from '../../../test/helpers/mcp-calls';

/**
 * Counts that hold under real parallel calls over MCP: twenty schedulers filling one place, one
 * person booked onto two overlapping services at once, and access seats taken past the plan's allowance.
 */
jest.setTimeout(180_000);

describe('runsheet under concurrency', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let second: McpClient;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Mark', planCode: 'growth' });
    mcp = await harness.mcpClient(org.apiKey);
    second = await harness.mcpClient((await harness.createKey(org.orgId, ['runsheet:read', 'runsheet:write', 'people:read', 'people:write'])).apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await second?.close();
    await harness?.close();
  });

  /** Both outcomes of a call: its result or its error body. */
  async function attempt(client: McpClient, name: string, args: Record<string, unknown>): Promise<{ ok: boolean; body: any }> {
    const result = await client.callTool({ name, arguments: args }, CallToolResultSchema);
    return result.isError ? { ok: false, body: JSON.parse((result.content as any)[0].text).error } : { ok: true, body: result.structuredContent };
  }

  async function setUp(members: number, positions = 1) {
    const { serviceType } = await mcpCall(mcp, 'runsheet_create_service_type', { name: `Service ${Math.random().toString(36).slice(2, 8)}` });
    const team = (await mcpCall(mcp, 'runsheet_create_team', { name: `Team ${Math.random().toString(36).slice(2, 8)}` })).teamId;
    const positionIds: string[] = [];
    for (let i = 0; i < positions; i += 1) positionIds.push((await mcpCall(mcp, 'runsheet_add_position', { teamId: team, name: `Position ${i}` })).positionId);
    const people: string[] = [];
    for (let i = 0; i < members; i += 1) {
      const id = (await mcpCall(mcp, 'people_create_contact', { firstName: `Volunteer${i}`, lastName: 'Parallel' })).contact.id as string;
      people.push(id);
    }
    return { serviceTypeId: serviceType.id as string, positionIds, people };
  }

  const plan = async (serviceTypeId: string, date: string, startTime: string) =>
    (await mcpCall(mcp, 'runsheet_create_plan', { serviceTypeId, date, times: [{ kind: 'service', startTime, durationMinutes: 90 }] })).plan.id as string;

  it('lets exactly one of twenty schedulers fill a place needed once', async () => {
    const { serviceTypeId, positionIds: [desk], people } = await setUp(20);
    const planId = await plan(serviceTypeId, DateTime.now().plus({ days: 12 }).toISODate()!, '10:00');
    await mcpCall(mcp, 'runsheet_set_needed_positions', { planId, positions: [{ positionId: desk, quantity: 1 }] });
    const results = await Promise.all(people.map((contactId, i) => attempt(i % 2 === 0 ? mcp : second, 'runsheet_schedule_person', { planId, positionId: desk, contactId })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).map((r) => r.body.details?.reason)).toEqual(Array(19).fill('position_full'));
    const after = (await mcpCall(mcp, 'runsheet_get_plan', { planId })).plan;
    expect(after.people).toHaveLength(1);
    expect(after.neededPositions[0]).toMatchObject({ quantity: 1, filled: 1, open: 0 });
  });

  it('books one person onto only one of two overlapping services scheduled at the same moment', async () => {
    const { serviceTypeId, positionIds: [desk], people: [person] } = await setUp(1);
    const date = DateTime.now().plus({ days: 13 }).toISODate()!;
    const [early, late] = [await plan(serviceTypeId, date, '10:00'), await plan(serviceTypeId, date, '11:00')];
    const results = await Promise.all([early, late, early, late].map((planId, i) => attempt(i % 2 === 0 ? mcp : second, 'runsheet_schedule_person', { planId, positionId: desk, contactId: person })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const reasons = results.filter((r) => !r.ok).map((r) => r.body.details?.conflicts?.[0]?.code ?? r.body.details?.reason ?? r.body.code);
    expect(reasons.every((reason) => ['already_serving', 'conflict'].includes(reason))).toBe(true);
  });

  it('gives out no more access seats than the plan allows, however many are added at once', async () => {
    const starter = await harness.createOrg({ name: 'Small church', planCode: 'starter' });
    const small = await harness.mcpClient(starter.apiKey);
    try {
      const team = (await mcpCall(small, 'runsheet_create_team', { name: 'Welcome' })).teamId;
      const door = (await mcpCall(small, 'runsheet_add_position', { teamId: team, name: 'Door' })).positionId;
      const people: string[] = [];
      for (let i = 0; i < 8; i += 1) people.push((await mcpCall(small, 'people_create_contact', { firstName: `Greeter${i}`, lastName: 'Seat' })).contact.id);
      const results = await Promise.all(people.map((contactId) => attempt(small, 'runsheet_add_team_member', { positionId: door, contactId })));
      expect(results.filter((r) => r.ok)).toHaveLength(5);
      expect(results.filter((r) => !r.ok).map((r) => r.body.code)).toEqual(Array(3).fill('allowance_exceeded'));
      const { features } = await mcpCall(small, 'platform_usage', {});
      expect(features.find((f: any) => f.feature === 'runsheet_access_seats')).toMatchObject({ used: 5, limit: 5, remaining: 0, period: 'standing' });
      // A second position for someone already seated takes no new seat, even at the limit.
      const seated = people[results.findIndex((r) => r.ok)];
      const stage = (await mcpCall(small, 'runsheet_add_position', { teamId: team, name: 'Car park' })).positionId;
      expect(await mcpCall(small, 'runsheet_add_team_member', { positionId: stage, contactId: seated })).toMatchObject({ added: true, newSeat: false });
    } finally {
      await small.close();
    }
  });
});
