import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ApprovalRoute } from '../../core/approvals';
import { ALL_SCOPES, OPERATOR_SCOPE } from '../../core/scopes';
import { FOLLOW_UPS_OF_EARLIER_PLANS, currentFollowUpKind, followUpOf, workflowTypeForPlan } from '../../core/tool-plan';
import { allModules, allTools, findTool, isInvokeApiTool, permittedTools } from '../../modules/catalogue';
import { inputSchemaOf, outputSchemaOf } from '../../modules/schema';
import {
  annotationsOf, catalogueCounts, httpMethodOf, manifestEntryOf, mcpToolOf, openAiFunctionOf, parseToolsets, selectTools,
} from '../../modules/surfaces';
import { MODULES, allMigrations } from '../../modules';
import { PLAN_CODES } from '../../modules/module';
import { PROMISED_METRICS } from '../../modules/metrics';
import { METERED_FEATURES } from '../../core/billing';
import { defineTool, policyOf, taskOf, type AnyTool } from '../../modules/tool';

const tools = allTools();
const byName = tools.map((tool) => [tool.name, tool] as const);

describe('catalogue invariants', () => {
  it('is not empty and holds the tools of issue 2', () => {
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining([
      'platform_overview', 'platform_list_tools', 'platform_search_tools', 'platform_inspect_tools', 'platform_session_tools',
      'platform_execute_workflow_tool', 'platform_usage', 'people_create_contact', 'people_get_contact', 'people_search_contacts',
      'people_list_contacts', 'people_update_contact', 'people_delete_contact', 'people_add_note', 'people_list_notes',
      'people_list_care_timeline',
    ]));
  });

  it('has unique names', () => {
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('findTool finds every tool by name and nothing else', () => {
    for (const tool of tools) expect(findTool(tool.name)).toBe(tool);
    expect(findTool('people_fly_to_moon')).toBeUndefined();
  });

  it('allModules lists exactly the modules tools declare', () => {
    expect(new Set(allModules())).toEqual(new Set(tools.map((t) => t.module)));
    expect(allModules().length).toBe(new Set(allModules()).size);
  });

  it.each(byName)('%s: snake_case name prefixed by its module', (_name, tool) => {
    expect(tool.module).toMatch(/^[a-z][a-z0-9]*$/);
    expect(tool.name).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/);
    expect(tool.name.startsWith(`${tool.module}_`)).toBe(true);
  });

  it.each(byName)('%s: has a title, a real description, an effect and a known scope', (_name, tool) => {
    expect(tool.title.trim().length).toBeGreaterThanOrEqual(5);
    expect(tool.description.trim().length).toBeGreaterThanOrEqual(40);
    expect(tool.description).not.toBe(tool.title);
    expect(['read', 'write', 'send']).toContain(tool.effect);
    expect([...ALL_SCOPES, OPERATOR_SCOPE] as readonly string[]).toContain(tool.scope);
    expect(typeof tool.run).toBe('function');
    expect(typeof tool.listed).toBe('boolean');
  });

  // people:safeguarding only ever widens what may be read (safeguarding records, restricted pastoral material), so it is a read scope too.
  // The operator's scope covers both the operator's reads and writes (only platform admins' operator keys hold it).
  it.each(byName)('%s: read tools need a :read scope (or people:safeguarding); writes never need a :read one', (_name, tool) => {
    if (tool.effect === 'read') expect(tool.scope.endsWith(':read') || tool.scope === 'people:safeguarding' || tool.scope === OPERATOR_SCOPE).toBe(true);
    if (tool.effect !== 'read' && tool.name !== 'platform_execute_workflow_tool') expect(tool.scope.endsWith(':read')).toBe(false);
  });

  it.each(byName)('%s: input JSON Schema is a plain object schema both MCP and OpenAI accept', (_name, tool) => {
    const schema = inputSchemaOf(tool);
    expect(schema.type).toBe('object');
    for (const combinator of ['anyOf', 'oneOf', 'allOf', 'not', 'enum', '$ref']) expect(schema).not.toHaveProperty(combinator);
    expect(schema).toHaveProperty('properties');
    expect(typeof schema.properties).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    expect(schema).not.toHaveProperty('$schema');
    // Every required name is a declared property.
    const required = (schema.required ?? []) as string[];
    for (const name of required) expect(Object.keys(schema.properties as object)).toContain(name);
    // Serialisable as JSON without loss (no functions, no undefined).
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });

  it.each(byName)('%s: output JSON Schema is an object schema (MCP outputSchema)', (_name, tool) => {
    const schema = outputSchemaOf(tool);
    expect(schema.type).toBe('object');
    for (const combinator of ['anyOf', 'oneOf', 'allOf', 'not']) expect(schema).not.toHaveProperty(combinator);
  });

  it.each(byName)('%s: input schema rejects unknown keys', (_name, tool) => {
    const parsed = tool.input.safeParse({ surely_not_an_argument: 1 });
    expect(parsed.success).toBe(false);
    const issues = parsed.error!.issues;
    expect(issues.some((issue) => issue.code === 'unrecognized_keys' && (issue as { keys: string[] }).keys.includes('surely_not_an_argument'))).toBe(true);
  });

  it.each(byName)('%s: input schema rejects non-objects', (_name, tool) => {
    expect(tool.input.safeParse('text').success).toBe(false);
    expect(tool.input.safeParse([]).success).toBe(false);
    expect(tool.input.safeParse(null).success).toBe(false);
  });

  it.each(byName)('%s: metered tools name a write effect and positive units', (_name, tool) => {
    if (!tool.meter) return;
    expect(tool.effect).not.toBe('read');
    expect(tool.meter.units).toBeGreaterThan(0);
  });

  it('no catalogue tool is an invoke-api route bridge except by that name pattern', () => {
    expect(isInvokeApiTool('people_invoke_api_read')).toBe(true);
    expect(isInvokeApiTool('platform_invoke_dashboard_api_write')).toBe(true);
    expect(isInvokeApiTool('people_create_contact')).toBe(false);
  });

  it('permittedTools filters by scope', () => {
    const readers = permittedTools(['people:read']);
    expect(readers.length).toBeGreaterThan(0);
    expect(readers.every((t) => t.scope === 'people:read')).toBe(true);
    expect(permittedTools([])).toEqual([]);
    // Every scope an organisation can grant reaches every tool but the operator's pair.
    expect(permittedTools([...ALL_SCOPES]).map((t) => t.name).sort()).toEqual(tools.filter((t) => t.scope !== OPERATOR_SCOPE).map((t) => t.name).sort());
    expect(permittedTools([OPERATOR_SCOPE]).map((t) => t.name).sort()).toEqual(['platform_admin_invoke_api_read', 'platform_admin_invoke_api_write']);
  });

  it('catalogueCounts are derived from allTools', () => {
    const counts = catalogueCounts();
    expect(counts.tools).toBe(tools.length);
    expect(counts.listed).toBe(tools.filter((t) => t.listed).length);
    expect(Object.values(counts.byModule).reduce((a, b) => a + b, 0)).toBe(tools.length);
  });

  it('every metered feature is declared by exactly one module, and a metered tool by the module owning its feature', () => {
    const owners = new Map<string, string[]>();
    for (const module of MODULES) for (const meter of module.meters ?? []) owners.set(meter.feature, [...(owners.get(meter.feature) ?? []), module.name]);
    expect([...owners.keys()].sort()).toEqual([...METERED_FEATURES].sort());
    for (const [feature, modules] of owners) expect({ feature, modules }).toEqual({ feature, modules: [modules[0]] });
    for (const tool of tools.filter((t) => t.meter)) expect({ tool: tool.name, owner: owners.get(tool.meter!.feature)?.[0] }).toEqual({ tool: tool.name, owner: tool.module });
    for (const module of MODULES) {
      for (const meter of module.meters ?? []) expect(Object.keys(meter.allowances).sort()).toEqual([...PLAN_CODES].sort());
    }
  });

  it('every module declares the scopes its tools require, and no two modules declare the same scope', () => {
    const declaredBy = new Map<string, string>();
    for (const module of MODULES) {
      for (const scope of module.scopes) {
        expect({ scope, already: declaredBy.get(scope) }).toEqual({ scope, already: undefined });
        declaredBy.set(scope, module.name);
      }
    }
    for (const tool of tools) expect({ tool: tool.name, scopeOwner: declaredBy.get(tool.scope) }).toEqual({ tool: tool.name, scopeOwner: tool.module });
  });

  // Schemas are compared per tool against modules/<module>/__toolsnaps__/<tool>.json (test/unit/tool-schemas.test.ts).
});

describe('surfaces', () => {
  const base = {
    module: 'demo',
    title: 'Demo tool',
    description: 'A demo tool used only by the surfaces unit tests, never registered.',
    input: z.object({ a: z.string() }).strict(),
    output: z.object({}).strict(),
    run: async () => ({}),
  };
  const read = defineTool({ ...base, name: 'demo_read_thing', scope: 'people:read', effect: 'read', listed: true, destructive: true });
  const write = defineTool({ ...base, name: 'demo_write_thing', scope: 'people:write', effect: 'write', listed: false });
  const destroy = defineTool({ ...base, name: 'demo_delete_thing', scope: 'people:write', effect: 'write', listed: false, destructive: true, idempotent: true });
  const send = defineTool({ ...base, name: 'demo_send_thing', module: 'other', scope: 'channels:send', effect: 'send', listed: false });

  it('read tools are read-only, never destructive, idempotent, closed-world', () => {
    expect(annotationsOf(read)).toEqual({ title: 'Demo tool', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  });

  it('write tools default to non-destructive, non-idempotent; flags override', () => {
    expect(annotationsOf(write)).toEqual({ title: 'Demo tool', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    expect(annotationsOf(destroy)).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
  });

  it('send tools reach the open world', () => {
    expect(annotationsOf(send)).toMatchObject({ readOnlyHint: false, openWorldHint: true });
  });

  it('catalogue annotations follow the effects', () => {
    expect(annotationsOf(findTool('people_get_contact')!)).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(annotationsOf(findTool('people_delete_contact')!)).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(annotationsOf(findTool('people_update_contact')!)).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(annotationsOf(findTool('people_create_contact')!)).toMatchObject({ readOnlyHint: false, idempotentHint: false });
  });

  it('GET for reads, POST otherwise', () => {
    expect(httpMethodOf(read)).toBe('GET');
    expect(httpMethodOf(write)).toBe('POST');
    expect(httpMethodOf(send)).toBe('POST');
  });

  it('MCP, OpenAI and manifest forms carry the same schema', () => {
    const tool = findTool('people_create_contact')!;
    const mcp = mcpToolOf(tool);
    expect(mcp).toMatchObject({ name: tool.name, title: tool.title, description: tool.description });
    expect(mcp.inputSchema).toEqual(inputSchemaOf(tool));
    // tools/list stays small: output schemas come from platform_inspect_tools and the manifest.
    expect(mcp).not.toHaveProperty('outputSchema');
    expect(manifestEntryOf(tool).outputSchema).toEqual(outputSchemaOf(tool));
    const openai = openAiFunctionOf(tool);
    expect(openai).toEqual({ type: 'function', function: { name: tool.name, description: tool.description, parameters: inputSchemaOf(tool) } });
    const manifest = manifestEntryOf(tool);
    expect(manifest).toMatchObject({ name: tool.name, module: 'people', scope: 'people:write', effect: 'write', method: 'POST', metered: { feature: 'contacts', units: 1 } });
    expect(manifestEntryOf(findTool('people_get_contact')!).metered).toBeNull();
  });

  describe('selectTools', () => {
    const all: AnyTool[] = [read, write, destroy, send];
    it('default shows only listed tools', () => {
      expect(selectTools(all, 'default').map((t) => t.name)).toEqual(['demo_read_thing']);
    });
    it('all shows everything', () => {
      expect(selectTools(all, 'all').map((t) => t.name)).toEqual(all.map((t) => t.name));
    });
    it('a toolset adds its whole module to the listed tools', () => {
      expect(selectTools(all, ['other']).map((t) => t.name)).toEqual(['demo_read_thing', 'demo_send_thing']);
      expect(selectTools(all, ['demo']).map((t) => t.name)).toEqual(['demo_read_thing', 'demo_write_thing', 'demo_delete_thing']);
      expect(selectTools(all, []).map((t) => t.name)).toEqual(['demo_read_thing']);
    });
  });

  describe('parseToolsets', () => {
    it('no value or blank means the default list', () => {
      expect(parseToolsets(undefined)).toEqual({ toolsets: 'default', unknown: [] });
      expect(parseToolsets('')).toEqual({ toolsets: 'default', unknown: [] });
      expect(parseToolsets('   ')).toEqual({ toolsets: 'default', unknown: [] });
      expect(parseToolsets(['people'])).toEqual({ toolsets: 'default', unknown: [] });
    });
    it('all wins over anything else', () => {
      expect(parseToolsets('all')).toEqual({ toolsets: 'all', unknown: [] });
      expect(parseToolsets('people,all')).toEqual({ toolsets: 'all', unknown: [] });
    });
    it('splits, trims and reports unknown toolsets', () => {
      expect(parseToolsets(' people , platform ')).toEqual({ toolsets: ['people', 'platform'], unknown: [] });
      expect(parseToolsets('people,giving_nonsense')).toEqual({ toolsets: ['people'], unknown: ['giving_nonsense'] });
      expect(parseToolsets('people,,')).toEqual({ toolsets: ['people'], unknown: [] });
    });
  });
});

describe('approval routes, follow-ups and tasks (declared on the tool values)', () => {
  const routed = tools.filter((tool) => tool.approval);
  const updates = routed.filter((tool) => tool.approval!.kind === 'update');

  it('every decision of both approval workflows has exactly one tool', () => {
    const decisions = updates.map((tool) => {
      const route = tool.approval as Extract<ApprovalRoute, { kind: 'update' }>;
      return `${route.target}:${route.decision}`;
    });
    expect(decisions.sort()).toEqual([
      'outreach:approve', 'outreach:cancel', 'outreach:decline', 'outreach:edit', 'proposal:approve', 'proposal:reject',
    ]);
  });

  it.each(updates.map((tool) => [tool.name, tool] as const))('%s: names its item by a required id argument, writes, and never runs as a plain call', async (_name, tool) => {
    const route = tool.approval as Extract<ApprovalRoute, { kind: 'update' }>;
    const schema = inputSchemaOf(tool);
    expect(schema.required).toContain(route.idArg);
    expect(tool.effect).not.toBe('read');
    expect(tool.scope.endsWith(':write')).toBe(true);
    expect(tool.followUp).toBeUndefined();
    await expect(tool.run({} as never, {} as never)).rejects.toMatchObject({ code: 'internal_error' });
  });

  it('gated tools write; unconditionally gated ones can run as MCP tasks', () => {
    const gated = routed.filter((tool) => tool.approval!.kind === 'gated');
    expect(gated.map((tool) => tool.name)).toEqual(expect.arrayContaining(['people_merge_data_quality_contacts', 'giving_commit_batch']));
    // A gated tool may have a follow-up (channels_schedule_broadcast starts its sending workflow): the approved
    // action runs the same plan, so the follow-up runs after approval as after a plain call (modules/channels/__tests__/broadcast.test.ts).
    for (const tool of gated) {
      expect(tool.effect).not.toBe('read');
      const route = tool.approval as Extract<ApprovalRoute, { kind: 'gated' }>;
      // A conditional gate may answer at once with no proposal to follow, so it is a task only if it says how.
      if (route.when) expect(taskOf(tool)).toBe(tool.task);
      else expect(taskOf(tool)).toBeDefined();
    }
  });

  it('task tools wait on a person: gated, or they say which approval their result names; any extra scope they need is real', () => {
    const taskTools = tools.filter((tool) => taskOf(tool));
    expect(taskTools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['people_create_outreach', 'people_merge_data_quality_contacts']));
    for (const tool of taskTools) {
      const task = taskOf(tool)!;
      expect(tool.approval?.kind === 'gated' || typeof task.pendingOf === 'function').toBe(true);
      if (task.followScope) expect(ALL_SCOPES as readonly string[]).toContain(task.followScope);
    }
    expect(taskOf(findTool('people_create_outreach')!)!.pendingOf!({ item: { id: 'x' } })).toEqual({ outreachId: 'x' });
  });

  it('the policy carries the follow-up and picks the workflow type from it', () => {
    for (const tool of tools) {
      const policy = policyOf(tool);
      expect(policy.followUp).toEqual(tool.followUp ?? null);
      expect(workflowTypeForPlan({ tool: tool.name, policy })).toBe(tool.followUp ? 'toolCallWithFollowUpWorkflow' : 'toolCallWorkflow');
      // Plain data only: the policy crosses into workflow code.
      expect(JSON.parse(JSON.stringify(policy))).toEqual(policy);
    }
  });

  it('plans made before policies carried follow-ups keep theirs, as the tools now declare them', () => {
    for (const [name, followUp] of Object.entries(FOLLOW_UPS_OF_EARLIER_PLANS)) {
      // The kind a plan carried then is read as the kind the tool declares now.
      expect(findTool(name)?.followUp).toEqual({ ...followUp, kind: currentFollowUpKind(followUp.kind) });
      const { followUp: _absent, ...earlier } = policyOf(findTool(name)!);
      expect(followUpOf({ tool: name, policy: earlier })).toEqual(followUp);
    }
    expect(followUpOf({ tool: 'people_create_outreach', policy: { effect: 'write', meter: null, timeline: false, followUp: null } })).toBeNull();
    expect(followUpOf({ tool: 'people_get_contact', policy: { effect: 'read', meter: null, timeline: false } })).toBeNull();
  });

  it('no tool name is written in code that is not in the catalogue', () => {
    const root = path.join(__dirname, '..', '..');
    // Metric and metered feature names are the spec's (giving_total, runsheet_access_seats) and may share a module's prefix too.
    // A tool's own declaration names it without its module (tools.write('schedule_meeting') in groups), which may read like another module's prefix.
    const known = new Set<string>([...tools.map((tool) => tool.name), ...tools.map((tool) => tool.name.slice(tool.module.length + 1)), ...Object.keys(PROMISED_METRICS), ...METERED_FEATURES]);
    // Tables and views may share a module's prefix (giving_funds, people_directory): a name a migration creates is not a tool.
    // So may indexes (giving_funds_name_key), which services name when they explain a unique violation.
    const tables = new Set(allMigrations().flatMap((migration) => [...migration.up.matchAll(/CREATE (?:TABLE|VIEW|(?:UNIQUE )?INDEX) (?:IF NOT EXISTS )?([a-z0-9_]+)/g)].map((m) => m[1]!)));
    const prefixes = MODULES.map((module) => module.name).join('|');
    const quotedName = new RegExp(`['"\`]((?:${prefixes})_[a-z0-9_]+)['"\`]`, 'g');
    const unknown: string[] = [];
    const visit = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        // A module's tests name tools that do not exist on purpose (to see them refused).
        if (entry.isDirectory()) {
          if (entry.name !== '__tests__') visit(file);
        } else if (entry.name.endsWith('.ts')) {
          const text = fs.readFileSync(file, 'utf8');
          for (const match of text.matchAll(quotedName)) {
            // A kit declaration, tools.write('schedule_person', …), names its own module's tool by verb and noun, whatever word the verb shares with a module.
            if (/\btools\.(?:read|write|send)\($/.test(text.slice(Math.max(0, match.index - 20), match.index))) continue;
            if (!known.has(match[1]) && !tables.has(match[1]) && !isInvokeApiTool(match[1])) unknown.push(`${path.relative(root, file)}: ${match[1]}`);
          }
        }
      }
    };
    for (const dir of ['api', 'core', 'kernel', 'workflows', 'activities', 'modules', 'worker']) visit(path.join(root, dir));
    expect(unknown).toEqual([]);
  });
});
