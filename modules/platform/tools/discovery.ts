import { z } from 'zod';
import { StewardError, quoteInput } from '../../../core/errors';
import { CREDENTIAL_KINDS } from '../../../core/principal';
import { mayUseTool, type Catalogue } from '../../tool-catalogue';
import { inputSchemaOf, outputSchemaOf } from '../../schema';
import type { AnyTool } from '../../tool';
import { toolsFor } from '../../kit';
import { meaningOf } from '../search-meaning';
import { ToolSearchIndex } from '../tool-search';

const tools = toolsFor('platform', { read: 'platform:read', write: 'platform:write' });

// One index per catalogue: built on the first search, and again only for a catalogue a module was registered into since.
const searchIndexes = new WeakMap<Catalogue, ToolSearchIndex>();
function toolSearchIndex(catalogue: Catalogue): ToolSearchIndex {
  let index = searchIndexes.get(catalogue);
  if (!index) searchIndexes.set(catalogue, index = new ToolSearchIndex(catalogue.tools));
  return index;
}

const toolSummary = z.object({
  name: z.string(), title: z.string(), module: z.string(), scope: z.string(), effect: z.enum(['read', 'write', 'send']),
}).strict();

function summarise(tool: AnyTool) {
  return { name: tool.name, title: tool.title, module: tool.module, scope: tool.scope, effect: tool.effect };
}

export const listToolsTool = tools.read('list_tools', {
  title: 'List workflow tools',
  description: 'Lists the workflow tools this credential may call, optionally for one module. To find a tool by what it does, use platform_search_tools.',
  keywords: ['available tools', 'what can I do', 'catalogue'],
  examples: ['what are all the things you can do', 'list everything available to me', 'show me every tool for the giving side', 'list all the tools in the people area', 'what can you actually help me with here', 'run through all your abilities', 'which tools are there for kids check-in', "full list of what I'm able to do through you", 'all your tools please', "I'm training Bev on the office side, what's the full list of things you can do for rotas?", 'which tools have I got access to?'],
  listed: true,
  input: z.object({ module: z.string().trim().min(1).max(40).optional().describe('Module name, e.g. people or platform') }),
  output: z.object({ tools: z.array(toolSummary), count: z.number().int(), modules: z.array(z.string()) }).strict(),
  run: async (ctx, input) => {
    const modules = ctx.catalogue.modules;
    if (input.module && !modules.includes(input.module)) {
      throw new StewardError('validation_failed', `Unknown module ${quoteInput(input.module)}`, { hint: `Modules: ${modules.join(', ')}` });
    }
    const tools = ctx.catalogue.permittedTools(ctx.principal).filter((tool) => !input.module || tool.module === input.module);
    return { tools: tools.map(summarise), count: tools.length, modules };
  },
});

export const searchToolsTool = tools.read('search_tools', {
  title: 'Search tools',
  description: 'Finds the workflow tools this credential may call from a plain-words request, by its words and its meaning; best match first, each with why it matched. Then platform_inspect_tools for their input schemas.',
  keywords: ['find a tool', 'which tool', 'discover'],
  examples: ['is there a tool that can do this job', 'which function should I use for this task', 'find me the right tool for sending a birthday card', 'which of your tools would book a room for the youth club', 'which tool deals with wedding bookings', 'hunt out a tool that can merge duplicate people', 'is there something in here for managing the flower rota', 'what tool should I use to send out the pew sheet', 'which tool sends a text', "I want to log a home visit to Doris but don't know which tool does that, can you find one?", 'have you got a tool for booking the church hall?'],
  listed: true,
  input: z.object({
    query: z.string().trim().min(1).max(300).describe('What you want to do, in plain words'),
    limit: z.number().int().min(1).max(25).default(10),
  }),
  output: z.object({
    tools: z.array(z.string()).describe('Tool names, best match first (the same order as results)'),
    results: z.array(z.object({
      name: z.string(),
      why: z.string().describe('One line: which words matched, where, and what you said that brought them in'),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => {
    const allowed = new Set(ctx.catalogue.permittedTools(ctx.principal).map((tool) => tool.name));
    // Words find the candidates; the request's meaning reorders them (null model: words alone).
    const results = toolSearchIndex(ctx.catalogue).searchWithReasons(input.query, allowed, input.limit, await meaningOf(input.query));
    return { tools: results.map((hit) => hit.name), results };
  },
});

export const inspectToolsTool = tools.read('inspect_tools', {
  title: 'Inspect tool schemas',
  description: 'Returns the JSON input and output schemas of up to 10 tools by name, so you can call them correctly and read their results.',
  keywords: ['input schema', 'arguments', 'parameters', 'how to call'],
  examples: ['what arguments does this tool take', 'show me how to call a tool correctly', 'what fields do I need to fill in for the invite tool', 'show me the input format for creating a template', 'what does that tool expect me to give it', 'which parameters are required for recording a headcount', 'what does the result of the giving tool look like', 'get the schemas for these three tools', 'schema for giving_record_donation', 'before you call the room booking tool, check what inputs it needs so we get it right', 'what inputs does the check-in tool need?'],
  listed: true,
  input: z.object({ names: z.array(z.string().min(1).max(100)).min(1).max(10).describe('Tool names, at most 10') }),
  output: z.object({
    tools: z.array(z.object({
      name: z.string(), title: z.string(), description: z.string(), scope: z.string(),
      inputSchema: z.record(z.string(), z.unknown()),
      // The default tools/list may leave output schemas out to save an agent's context; they are always here.
      outputSchema: z.record(z.string(), z.unknown()),
    }).strict()),
    notFound: z.array(z.string()),
    notPermitted: z.array(z.object({ name: z.string(), scope: z.string() }).strict()),
  }).strict(),
  run: async (ctx, input) => {
    const tools = [];
    const notFound: string[] = [];
    const notPermitted: Array<{ name: string; scope: string }> = [];
    for (const name of new Set(input.names)) {
      const tool = ctx.catalogue.byName.get(name);
      if (!tool) notFound.push(name);
      else if (!mayUseTool(ctx.principal, tool)) notPermitted.push({ name, scope: tool.scope });
      else tools.push({ name, title: tool.title, description: tool.description, scope: tool.scope, inputSchema: inputSchemaOf(tool), outputSchema: outputSchemaOf(tool) });
    }
    return { tools, notFound, notPermitted };
  },
});

export const sessionToolsTool = tools.read('session_tools', {
  title: 'Session tools',
  description: 'What this session may do: the credential kind, the OAuth intent (if any), the granted scopes and the tools they permit.',
  keywords: ['permissions', 'my scopes', 'allowed tools', 'intent'],
  examples: ['what is this connection allowed to do', 'which permissions does my sign-in have', 'what am I allowed to do with this login', 'which scopes has this key been granted', 'can this connection see safeguarding things', 'what kind of credential am I using right now', 'what access did I give you when I connected', 'list the tools my current permissions let me use', 'my current access', 'Ruth set up this connection for me, what scopes did she give it?', 'am I able to touch giving from this session?'],
  listed: true,
  input: z.object({}),
  output: z.object({
    credentialKind: z.enum(CREDENTIAL_KINDS),
    intent: z.string().nullable(),
    role: z.string(),
    scopes: z.array(z.string()),
    tools: z.array(z.string()),
    count: z.number().int(),
  }).strict(),
  run: async (ctx) => {
    const tools = ctx.catalogue.permittedTools(ctx.principal).map((tool) => tool.name);
    return {
      credentialKind: ctx.principal.credentialKind, intent: ctx.principal.intent, role: ctx.principal.role,
      scopes: [...ctx.principal.scopes], tools, count: tools.length,
    };
  },
});

export const executeWorkflowToolTool = tools.write('execute_workflow_tool', {
  title: 'Execute a workflow tool',
  description: 'Runs any workflow tool by name with its arguments, for clients that cannot call tools outside the default list. The target tool\'s own scope applies. Not for *_invoke_api_* route bridges.',
  keywords: ['run tool', 'call tool by name', 'execute'],
  examples: ['call a tool that is not in the menu', 'run a tool by its name for me', "I can't see that tool in my list, run it anyway by name", 'call people_list_contacts through the generic runner', 'my app only shows the basic tools, run this other one for me', 'execute templates_list_templates with channel sms', 'trigger the giving statement tool indirectly', "use the workflow runner to call a tool my client doesn't offer", 'run guests_check_in by name', 'my chat app only lists a handful of tools so please run the rota one through the runner', 'can you call a hidden tool for me by its name?'],
  scope: 'platform:read',
  listed: true,
  dispatch: 'execute_inner_tool',
  input: z.object({
    toolName: z.string().min(1).max(100),
    arguments: z.record(z.string().max(100), z.unknown()).default({}),
  }),
  output: z.object({}).catchall(z.unknown()),
  run: async () => {
    throw new Error('platform_execute_workflow_tool is resolved by the API before a workflow starts');
  },
});
