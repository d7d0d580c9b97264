import { ALL_SCOPES } from '../../core/scopes';
import type { Principal } from '../../core/principal';
import { MODULES } from '../../modules';
import { buildCatalogue, findTool } from '../../modules/catalogue';
import type { ModuleDefinition } from '../../modules/module';
import { checkUses, contributionsTo, soleContributionTo } from '../../modules/registry';
import type { ToolContext } from '../../modules/tool';

const stub = (name: string, uses: string[]): ModuleDefinition => ({ name, title: name, description: name, tools: [], migrations: [], scopes: [], routes: [], uses });

describe('modules are peers', () => {
  it('the registry refuses a cycle among uses, naming it', () => {
    expect(() => checkUses([stub('a', ['b']), stub('b', ['c']), stub('c', ['a'])])).toThrow('Modules use each other in a cycle: a → b → c → a');
    expect(() => checkUses([stub('a', ['a'])])).toThrow('Module a names itself in uses');
    expect(() => checkUses([stub('a', ['b'])])).toThrow('Module a uses b, which is not registered');
    expect(() => checkUses([stub('a', ['b', 'c']), stub('b', ['c']), stub('c', [])])).not.toThrow();
  });

  it('the registered modules use each other one way only', () => {
    expect(() => checkUses(MODULES)).not.toThrow();
    const uses = new Map(MODULES.map((module) => [module.name, module.uses ?? []]));
    // The three pairs that used to import each other both ways.
    expect(uses.get('people')).not.toContain('channels');
    expect(uses.get('people')).not.toContain('attendance');
    expect(uses.get('templates')).not.toContain('channels');
  });

  it('channels and attendance fill the extension points people and templates declare', () => {
    expect(contributionsTo('peopleContactConsent')).toHaveLength(1);
    expect(typeof soleContributionTo('peopleOutreachDelivery').checkRecipient).toBe('function');
    expect(contributionsTo('peopleCareSignals').flat().map((source) => source.signal)).toEqual(['stopped_attending']);
    expect(contributionsTo('templatesInUse')).toHaveLength(1);
  });

  it('a tool reads the catalogue it is handed on its context, not a global one', async () => {
    const principal: Principal = {
      orgId: '00000000-0000-0000-0000-000000000001', userId: '00000000-0000-0000-0000-000000000002', role: 'owner', scopes: [...ALL_SCOPES],
      intent: null, credentialId: '00000000-0000-0000-0000-000000000003', credentialKind: 'api_key',
    };
    const ctx: ToolContext = {
      db: { query: () => { throw new Error('listing tools must not touch the database'); } } as unknown as ToolContext['db'],
      principal, org: { id: principal.orgId, name: 'Test', country: 'GB', dateFormat: 'DMY', planCode: 'starter' }, workflowId: 'test',
      catalogue: buildCatalogue(MODULES.filter((module) => module.name === 'platform' || module.name === 'templates')),
    };
    const tool = findTool('platform_list_tools')!;
    const out = (await tool.run(ctx, tool.input.parse({}))) as { tools: Array<{ module: string }>; modules: string[] };
    expect(out.modules).toEqual(['platform', 'templates']);
    expect(new Set(out.tools.map((entry) => entry.module))).toEqual(new Set(['platform', 'templates']));
  });
});
