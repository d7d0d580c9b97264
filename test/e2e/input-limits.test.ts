import { OPERATOR_SCOPE } from '../../core/scopes';
import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { guarded } from '../../modules/activity-kit';
import type { ToolPlan } from '../../core/tool-plan';
import { allTools } from '../../modules/catalogue';
import { inputSchemaOf, type JsonSchema } from '../../modules/schema';
import { Harness, type InvokeResponse, type TestOrg } from '../helpers/harness';

/**
 * Oversized and unstorable arguments are refused by the API with validation_failed, before
 * any workflow starts, and no answer repeats what was sent. A tool failure carrying a huge
 * message still ends its call at once instead of spinning until the execution timeout.
 */

const MEGABYTE = 'x'.repeat(1_000_000);
/** The tool whose activity the harness makes fail with a huge message (see beforeAll). */
const HUGE_FAILURE_TOOL = 'people_list_tags';

let harness: Harness;
let org: TestOrg;

beforeAll(async () => {
  harness = await Harness.start({
    wrapActivities: (activities) => ({
      ...activities,
      // Fails the way a tool that echoed a huge value in its error did, through the real failure conversion.
      runTool: (plan: ToolPlan) => (plan.tool === HUGE_FAILURE_TOOL
        ? guarded(async () => { throw new StewardError('validation_failed', `name: "${'y'.repeat(3_000_000)}" is not allowed`); })
        : activities.runTool(plan)),
    }),
  });
  org = await harness.createOrg();
}, 120_000);

afterAll(async () => {
  await harness?.close();
});

/** Ids of the organisation's tool-call workflows the visibility store lists. */
async function workflowsOf(orgId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const run of harness.temporal.workflow.list({ query: `StewardOrg = "${orgId}"` })) ids.push(run.workflowId);
  return ids.sort();
}

/** An answer that names the problem without repeating the value: small, whatever was sent. */
function expectShortRefusal(response: InvokeResponse, path: string) {
  expect(response.status).toBe(400);
  expect(response.body.error?.code).toBe('validation_failed');
  expect(response.body.error?.issues?.map((issue) => issue.path)).toContain(path);
  expect(JSON.stringify(response.body).length).toBeLessThan(5_000);
}

describe('the sixteen fields that had no length limit, each at 1 MB', () => {
  const contactId = randomUUID();
  // An organisation of its own, so the workflows counted below are only these calls'.
  let fresh: TestOrg;
  beforeAll(async () => {
    fresh = await harness.createOrg();
  });
  const dateFields = ['dateOfBirth', 'baptismDate', 'membershipDate', 'anniversaryDate'];
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ...dateFields.map((field): [string, Record<string, unknown>, string] => ['people_create_contact', { firstName: 'A', lastName: 'B', [field]: MEGABYTE }, field]),
    ...dateFields.map((field): [string, Record<string, unknown>, string] => ['people_update_contact', { contactId, [field]: MEGABYTE }, field]),
    ...dateFields.map((field): [string, Record<string, unknown>, string] => ['people_bulk_update_contacts', { entries: [{ contactId, [field]: MEGABYTE }] }, `entries.0.${field}`]),
    ['people_add_note', { contactId, content: 'Called round', followUpDate: MEGABYTE }, 'followUpDate'],
    ['people_update_note', { noteId: randomUUID(), followUpDate: MEGABYTE }, 'followUpDate'],
    ['people_count_unsubscribes', { from: MEGABYTE }, 'from'],
    ['people_count_unsubscribes', { to: MEGABYTE }, 'to'],
    ['platform_list_tools', { module: MEGABYTE }, 'module'],
  ];

  it.each(cases)('%s %j is refused by validation', async (tool, args, path) => {
    expectShortRefusal(await harness.invoke(fresh.apiKey, tool, args), path);
  });

  it('none of them started a workflow', async () => {
    // A call that does start one, found in the visibility store, shows the store has caught up with the calls before it.
    const marker = await harness.call(fresh.apiKey, 'people_count_unsubscribes', { from: '2024-01-01', to: '2024-01-31' });
    expect(marker.unsubscribes).toBe(0);
    let ids: string[] = [];
    for (let attempt = 0; attempt < 100 && ids.length === 0; attempt += 1) {
      ids = await workflowsOf(fresh.orgId);
      if (ids.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(ids).toHaveLength(1);
  });
});

describe('keys and names are not echoed', () => {
  it('an unknown argument with a huge name is refused with its name cut short', async () => {
    const response = await harness.invoke(org.apiKey, 'people_count_unsubscribes', { ['k'.repeat(500_000)]: 1 });
    expect(response.status).toBe(400);
    expect(response.body.error?.code).toBe('validation_failed');
    expect(JSON.stringify(response.body).length).toBeLessThan(5_000);
  });

  it('an unknown tool with a huge name answers unknown_tool with the name cut short', async () => {
    const response = await harness.invoke(org.apiKey, 't'.repeat(500_000), {});
    expect(response.status).toBe(404);
    expect(response.body.error?.code).toBe('unknown_tool');
    expect(JSON.stringify(response.body).length).toBeLessThan(5_000);
  });
});

// ---------------------------------------------------------------- NUL and other unstorable text

interface StringInput {
  /** The arguments carrying `text` at one string input (other required inputs may be missing). */
  args: (text: string) => Record<string, unknown>;
  /** The issue path naming it. */
  path: string;
}

/**
 * Every place a string can go in a tool's input, found by walking its JSON Schema: object
 * properties, array items, record keys and values, union branches. Each comes with a
 * builder putting a given string there.
 */
function stringInputs(schema: JsonSchema): StringInput[] {
  const found: StringInput[] = [];
  const walk = (node: JsonSchema, place: (value: unknown) => unknown, path: string[]): void => {
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes('string')) {
      found.push({ args: (text) => place(text) as Record<string, unknown>, path: path.join('.') });
    }
    for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
      walk(child, (value) => place({ [key]: value }), [...path, key]);
    }
    if (node.items && typeof node.items === 'object' && !Array.isArray(node.items)) {
      walk(node.items as JsonSchema, (value) => place([value]), [...path, '0']);
    }
    const additional = node.additionalProperties;
    if (types.includes('object') && additional && typeof additional === 'object') {
      const names = node.propertyNames as JsonSchema | undefined;
      // A key of free text: the key itself carries the string.
      if (!names || !Array.isArray(names.enum)) found.push({ args: (text) => place({ [text]: 1 }) as Record<string, unknown>, path: [...path, '(key)'].join('.') });
      const key = Array.isArray(names?.enum) ? String(names!.enum[0]) : 'key';
      walk(additional as JsonSchema, (value) => place({ [key]: value }), [...path, key]);
    }
    for (const union of ['anyOf', 'oneOf'] as const) {
      for (const branch of (node[union] ?? []) as JsonSchema[]) walk(branch, place, path);
    }
  };
  walk(schema, (value) => value, []);
  // A union with two string branches would list one place twice.
  return found.filter((input, index) => found.findIndex((other) => other.path === input.path) === index);
}

// The operator's pair answers an organisation's key with insufficient_scope before reading its arguments (test/e2e/operator-admin.test.ts).
const nulCases = allTools().filter((tool) => tool.scope !== OPERATOR_SCOPE).flatMap((tool) => stringInputs(inputSchemaOf(tool)).map((input) => [tool.name, input.path, input] as const));

describe('a NUL in any string input of any tool', () => {
  it('reaches every kind of place a string can go', () => {
    // Guards the walk itself: a nested property, an array item, a record key and value, a union branch.
    const paths = new Set(nulCases.map(([tool, path]) => `${tool} ${path}`));
    for (const expected of [
      'people_create_contact firstName', 'people_bulk_update_contacts entries.0.firstName', 'people_create_contact customFields.(key)',
      'people_create_contact customFields.key', 'people_preview_segment_api rules.rules.0.value', 'people_preview_segment_api rules.rules.0.value.0',
      'platform_execute_workflow_tool arguments.(key)',
    ]) expect(paths).toContain(expected);
    expect(nulCases.length).toBeGreaterThan(150);
  });

  it.each(nulCases)('%s %s: 400 naming the field', async (tool, path, input) => {
    const response = await harness.invoke(org.apiKey, tool, input.args('Gr\u0000ace'));
    expect(response.status).toBe(400);
    expect(response.body.error?.code).toBe('validation_failed');
    expect(response.body.error?.issues?.map((issue) => issue.path)).toContain(path);
  });

  it('an unpaired surrogate is refused the same way', async () => {
    const response = await harness.invoke(org.apiKey, 'people_search_contacts', { query: 'Gr\uD800ace' });
    expect(response.status).toBe(400);
    expect(response.body.error?.issues).toEqual([expect.objectContaining({ path: 'query', message: expect.stringContaining('surrogate') })]);
  });

  it('text inside the inner tool\'s arguments is checked too', async () => {
    const response = await harness.invoke(org.apiKey, 'platform_execute_workflow_tool', {
      toolName: 'people_search_contacts', arguments: { query: 'Gr\u0000ace' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error?.issues?.map((issue) => issue.path)).toContain('arguments.query');
  });

  it('a search with the same text without the NUL works (the refusal is about the character)', async () => {
    const response = await harness.invoke(org.apiKey, 'people_search_contacts', { query: 'Grace' });
    expect(response.status).toBe(200);
  });
});

// ---------------------------------------------------------------- a failure too large for Temporal

describe('a tool failure with a huge message', () => {
  it('ends the call with its error, the message cut, and the workflow failed without a failed task', async () => {
    const workflowKey = `huge-failure-${randomUUID()}`;
    const response = await harness.invoke(org.apiKey, HUGE_FAILURE_TOOL, {}, { 'Idempotency-Key': workflowKey });
    expect(response.status).toBe(400);
    expect(response.body.error?.code).toBe('validation_failed');
    expect(response.body.error!.message.length).toBeLessThan(2_100);
    // Before the failure was cut, its workflow's completion exceeded Temporal's payload limit: the task failed and was retried until the execution timeout.
    const handle = harness.temporal.workflow.getHandle(`call-${org.orgId}-${workflowKey}`);
    expect((await handle.describe()).status.name).toBe('FAILED');
    const history = await handle.fetchHistory();
    const types = (history.events ?? []).map((event) => String(event.eventType));
    expect(types.filter((type) => /WORKFLOW_TASK_FAILED/.test(type))).toEqual([]);
  });
});
