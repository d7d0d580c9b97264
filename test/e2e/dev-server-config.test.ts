import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { SA_ACTOR, SA_MODULE, SA_ORG, SA_TOOL } from '../../core/search-attributes';
import { argsOf } from '../../db/ports';
import { eventually } from '../helpers/sandbox-stack';
import { DEV_SERVER_DYNAMIC_CONFIG, findTemporalCli, parseDevServerSettings, startDevServer, type DevServer } from '../../scripts/lib/temporal-dev-server';

/**
 * The dev server npm start runs keeps its search attributes cached (DEV_SERVER_DYNAMIC_CONFIG):
 * the launcher must pass the setting, and Steward's attributes, given as start flags, must still
 * be accepted and filterable from the very first call on a fresh server.
 */
describe('the dev server as the launcher starts it', () => {
  let dev: DevServer;
  let connection: Connection;

  beforeAll(async () => {
    dev = await startDevServer({ headless: true });
    connection = await Connection.connect({ address: dev.address });
  }, 90_000);

  afterAll(async () => {
    await connection?.close();
    await dev?.stop();
  });

  it('runs with the search-attribute cache on', () => {
    const args = argsOf(dev.process.pid!);
    expect(DEV_SERVER_DYNAMIC_CONFIG).toContain('system.forceSearchAttributesCacheRefreshOnRead=false');
    for (const setting of DEV_SERVER_DYNAMIC_CONFIG) {
      const at = args.indexOf(setting);
      expect(at).toBeGreaterThan(0);
      expect(args[at - 1]).toBe('--dynamic-config-value');
    }
  });

  it('names settings the bundled server knows (it ignores a key it does not, so a misspelt one would do nothing)', () => {
    const cli = fs.readFileSync(findTemporalCli());
    for (const setting of DEV_SERVER_DYNAMIC_CONFIG) expect(cli.includes(Buffer.from(setting.split('=')[0]))).toBe(true);
    expect(cli.includes(Buffer.from('system.forceSearchAttributesCacheRefreshOnReed'))).toBe(false);
  });

  it('accepts a start with all four of Steward\'s search attributes at once, and finds the run by each', async () => {
    const client = new Client({ connection });
    const values = { org: randomUUID(), tool: `tool_${randomUUID()}`, module: `module_${randomUUID()}`, actor: randomUUID() };
    const handle = await client.workflow.start('noWorkerRunsThis', {
      taskQueue: `nobody-${randomUUID()}`,
      workflowId: `dev-server-config-${randomUUID()}`,
      typedSearchAttributes: [
        { key: SA_ORG, value: values.org }, { key: SA_TOOL, value: values.tool }, { key: SA_MODULE, value: values.module }, { key: SA_ACTOR, value: values.actor },
      ],
    });
    try {
      const queries = [`StewardOrg = '${values.org}'`, `StewardTool = '${values.tool}'`, `StewardModule = '${values.module}'`, `StewardActor = '${values.actor}'`];
      // Visibility is written after the start returns.
      for (const query of queries) expect((await eventually(() => client.workflow.count(query), ({ count }) => count > 0, 5000, 100)).count).toBe(1);
    } finally {
      await handle.terminate();
    }
  });
});

describe('the benches\' dynamic-config knob', () => {
  it('reads a comma-separated list, `default` as the CLI\'s own, and nothing as npm start\'s', () => {
    expect(parseDevServerSettings('a.b=1, c.d=true')).toEqual(['a.b=1', 'c.d=true']);
    expect(parseDevServerSettings('default')).toEqual([]);
    expect(parseDevServerSettings(undefined)).toBeUndefined();
    expect(parseDevServerSettings(' ')).toBeUndefined();
  });
});
