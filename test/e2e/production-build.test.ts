import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../db/config';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/**
 * What the production image runs: `npm run build` (tsc, the runtime files beside the code, the
 * workflow bundle), then the API, a worker and the admin CLI with plain `node`, no tsx; both
 * halves stop cleanly on SIGTERM.
 */
describe('the compiled build, run with plain node', () => {
  const children: ChildProcess[] = [];
  let db: TestDatabase;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-build-'));

  beforeAll(async () => {
    execFileSync(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'scripts', 'build.ts')], { cwd: PROJECT_ROOT, stdio: 'pipe' });
    db = await createTestDatabase();
  }, 300_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const env = (taskQueue: string) => ({
    PATH: process.env.PATH, DATABASE_URL: db.url, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS, STEWARD_TASK_QUEUE: taskQueue,
    STEWARD_PAYLOAD_KEY: process.env.STEWARD_PAYLOAD_KEY, STEWARD_DATA_DIR: dataDir, NODE_ENV: 'production',
    STEWARD_WORKFLOW_BUNDLE: path.join(PROJECT_ROOT, 'dist', 'workflow-bundle.js'), PORT: '0', MESSAGING_SANDBOX: 'off',
  });

  function run(script: string, taskQueue: string, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray; output: () => string }> {
    // Plain node: no --import, no loader; the compiled JavaScript only.
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'app', ...script.split('/'))], { cwd: PROJECT_ROOT, env: env(taskQueue), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    return new Promise((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = ready.exec(output);
        if (match) resolve({ child, match, output: () => output });
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`${script} exited (${code}): ${output}`)));
    });
  }

  const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

  it('serves calls through the compiled API and worker, and both stop on SIGTERM', async () => {
    expect(fs.existsSync(path.join(PROJECT_ROOT, 'dist', 'app', 'api', 'main.js'))).toBe(true);
    // Widget scripts are bundled for the browser when first served, from the sources copied beside the code.
    expect(fs.existsSync(path.join(PROJECT_ROOT, 'dist', 'app', 'modules', 'platform', 'widgets', 'usage-meters.mts'))).toBe(true);
    const taskQueue = `build-${randomBytes(4).toString('hex')}`;
    const worker = await run('worker/main.js', taskQueue, /worker polling/);
    const api = await run('api/main.js', taskQueue, /API (http:\/\/127\.0\.0\.1:\d+)/);
    const url = api.match[1]!;

    const bootstrap = JSON.parse(execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'app', 'scripts', 'admin.js'), 'bootstrap', '--json'], { env: env(taskQueue), encoding: 'utf8' })) as { apiKey: string };
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const call = await fetch(`${url}/api/agent/invoke`, {
      method: 'POST', headers: { authorization: `Bearer ${bootstrap.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'people_create_contact', arguments: { firstName: 'Built', lastName: 'Ahead' } }),
    });
    expect(call.status).toBe(200);
    expect(((await call.json()) as { result: { contact: { displayName: string } } }).result.contact.displayName).toBe('Built Ahead');
    const widget = await fetch(`${url}/api/mcp`, {
      method: 'POST', headers: { authorization: `Bearer ${bootstrap.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'ui://steward/w/platform-usage-meters' } }),
    });
    expect(await widget.text()).toContain('<!doctype html>');

    api.child.kill('SIGTERM');
    expect(await exitOf(api.child)).toBe(0);
    expect(api.output()).toContain('API stopping');
    worker.child.kill('SIGTERM');
    expect(await exitOf(worker.child)).toBe(0);
  }, 120_000);
});
