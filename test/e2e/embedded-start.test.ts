import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort } from '../../scripts/lib/temporal-dev-server';
import { BUNDLE_PATH_ENV } from '../helpers/env';

/**
 * `npm start` as a new user runs it: no DATABASE_URL, no TEMPORAL_ADDRESS, so it starts
 * its embedded PostgreSQL server and the Temporal dev server itself. Then 32 clients
 * (half MCP, half the bridge) make over 2,000 mixed calls while `npm run admin` runs;
 * every answer is checked. Finally SIGTERM under load must stop every process it started.
 */
const ROOT = path.resolve(__dirname, '../..');
const CLIENTS = 32;
const CALLS_PER_CLIENT = 64;

interface Launch {
  child: ChildProcess;
  output: () => string;
}

let dataDir: string;
let env: NodeJS.ProcessEnv;
let apiUrl: string;

function launcherEnv(ports: { api: number; temporal: number; ui: number; pg: number }): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base.DATABASE_URL;
  delete base.TEMPORAL_ADDRESS;
  return {
    ...base,
    STEWARD_DATA_DIR: dataDir,
    PORT: String(ports.api),
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    EMBEDDED_PG_PORT: String(ports.pg),
    // The bundle this test run already built; building another would only cost time.
    STEWARD_WORKFLOW_BUNDLE: process.env[BUNDLE_PATH_ENV],
  };
}

/** Starts `npm start` as a process-group leader (as a terminal would), resolving once it says it is running. */
async function launch(): Promise<Launch> {
  let output = '';
  const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), 120_000);
    const poll = setInterval(() => {
      if (output.includes('Steward is running')) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve();
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  return { child, output: () => output };
}

/**
 * `npm start` on ports free a moment ago. Other suites on this machine take ports of their own at
 * any time, so a port taken between the check and the bind is tried once more on fresh ports;
 * any other failure fails the test with npm start's output (which ends with the dev server's log).
 */
async function launchOnFreePorts(): Promise<Launch> {
  for (let attempt = 1; ; attempt += 1) {
    const ports = { api: await freePort(), temporal: await freePort(), ui: await freePort(), pg: await freePort() };
    env = launcherEnv(ports);
    apiUrl = `http://127.0.0.1:${ports.api}`;
    try {
      return await launch();
    } catch (error) {
      if (attempt >= 2 || !/address already in use|EADDRINUSE/i.test(String(error))) throw error;
    }
  }
}

/** What `read` makes of each running process's /proc entry; a process that exits while we look is left out. */
function eachProcess<T>(read: (pid: string) => T | undefined): T[] {
  const found: T[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const value = read(entry);
      if (value !== undefined) found.push(value);
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** Every process whose command line names this test's data folder: the PostgreSQL server and its backends, the dev server. */
function processesUsing(dir: string): number[] {
  return eachProcess((pid) => (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir) ? Number(pid) : undefined));
}

/** The processes still in a process group, as `pid command state (parent)` (state Z: exited, not yet reaped by its parent). */
function groupMembers(pgid: number): string[] {
  return eachProcess((pid) => {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // After the command: state, ppid, pgrp.
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(pgrp) === pgid ? `${pid} ${comm} ${state} (parent ${ppid})` : undefined;
  });
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', 'admin', '--', ...args], { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The lines of `output` that match `pattern`, the last `last` of them. */
function linesMatching(output: string, pattern: RegExp, last = 80): string {
  return output.split('\n').filter((line) => pattern.test(line)).slice(-last).join('\n');
}

/** The service's warning and error lines. */
const WARNINGS_AND_ERRORS = /"level":"(warn|error)"|Error|error:/;
/** What the launcher says while stopping (scripts/lib/shutdown.ts): the signal, and each step that overran or failed. */
const SHUTDOWN_LINES = /shutting down|^shutdown: /;

type Call = (tool: string, args: Record<string, unknown>) => Promise<any>;

function bridgeCaller(apiKey: string): Call {
  return async (tool, args) => {
    const response = await fetch(`${apiUrl}/api/agent/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ tool, arguments: args }),
    });
    const body = (await response.json()) as { ok: boolean; result?: any; error?: unknown };
    if (!body.ok) throw new Error(`${tool}: ${JSON.stringify(body.error)}`);
    return body.result;
  };
}

async function mcpCaller(apiKey: string): Promise<{ call: Call; close: () => Promise<void> }> {
  const client = new McpClient({ name: 'embedded-load', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${apiUrl}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  return {
    call: async (tool, args) => {
      // Correctness is what is checked here, not speed (the bench measures that): a loaded machine must not fail the call.
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 600_000 });
      if (result.isError) throw new Error(`${tool}: ${JSON.stringify(result.content)}`);
      return result.structuredContent;
    },
    close: () => client.close(),
  };
}

interface Tally {
  calls: number;
  wrong: string[];
  errors: string[];
  created: Array<{ id: string; lastName: string; preferredName: string | null }>;
}

/**
 * One client's share: create a contact, read it back, update it, read the update, find it by
 * name, and read a contact made before the load (a false "not found" is a wrong answer).
 */
async function clientLoad(call: Call, clientNo: number, anchorId: string, tally: Tally): Promise<void> {
  let made = 0;
  let current: { id: string; lastName: string; preferredName: string | null } | undefined;
  const step = async (index: number) => {
    switch (index % 6) {
      case 0: {
        const lastName = `Load${clientNo}x${made++}${randomBytes(3).toString('hex')}`;
        const { contact } = await call('people_create_contact', { firstName: 'Pat', lastName });
        if (contact?.lastName !== lastName) tally.wrong.push(`create returned ${contact?.lastName} for ${lastName}`);
        current = { id: contact.id, lastName, preferredName: null };
        tally.created.push(current);
        return;
      }
      case 1:
      case 3: {
        const { contact } = await call('people_get_contact', { contactId: current!.id });
        if (contact?.id !== current!.id || contact.lastName !== current!.lastName || contact.preferredName !== current!.preferredName) {
          tally.wrong.push(`get ${current!.id} answered ${JSON.stringify({ id: contact?.id, lastName: contact?.lastName, preferredName: contact?.preferredName })}`);
        }
        return;
      }
      case 2: {
        const preferredName = `P${index}`;
        const { contact } = await call('people_update_contact', { contactId: current!.id, preferredName });
        if (contact?.preferredName !== preferredName) tally.wrong.push(`update of ${current!.id} answered ${contact?.preferredName}`);
        current!.preferredName = preferredName;
        return;
      }
      case 4: {
        const { contacts } = await call('people_search_contacts', { query: current!.lastName });
        const ids = (contacts as Array<{ id: string }>).map((c) => c.id);
        if (ids.length !== 1 || ids[0] !== current!.id) tally.wrong.push(`search for ${current!.lastName} found ${JSON.stringify(ids)}`);
        return;
      }
      default: {
        const { contact } = await call('people_get_contact', { contactId: anchorId });
        if (contact?.id !== anchorId) tally.wrong.push(`anchor read answered ${contact?.id}`);
      }
    }
  };
  for (let index = 0; index < CALLS_PER_CLIENT; index += 1) {
    tally.calls += 1;
    try {
      await step(index);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A refusal that claims a row we made is missing is a wrong answer, not just an error.
      (/not_found|was not found/.test(message) ? tally.wrong : tally.errors).push(message.slice(0, 300));
      if (index % 6 === 0) index += 5; // without a contact there is nothing for the rest of this round to read
    }
  }
}

describe('npm start on embedded defaults (real PostgreSQL server, dev server)', () => {
  let running: Launch;
  let apiKey: string;
  let orgId: string;
  let anchorId: string;
  const tally: Tally = { calls: 0, wrong: [], errors: [], created: [] };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-embedded-'));
    running = await launchOnFreePorts();
    const boot = await admin('bootstrap', '--json', '--plan', 'growth');
    expect(boot.code).toBe(0);
    ({ apiKey, orgId } = JSON.parse(boot.stdout));
    const { contact } = await bridgeCaller(apiKey)('people_create_contact', { firstName: 'Anchor', lastName: 'Person' });
    anchorId = contact.id;
  }, 180_000);

  afterAll(async () => {
    if (running && groupAlive(running.child.pid!)) process.kill(-running.child.pid!, 'SIGKILL');
    for (const pid of processesUsing(dataDir)) process.kill(pid, 'SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 32 concurrent clients correctly over 2,000+ calls while the admin CLI runs', async () => {
    const mcp = await Promise.all(Array.from({ length: CLIENTS / 2 }, () => mcpCaller(apiKey)));
    const callers: Call[] = [...mcp.map((m) => m.call), ...Array.from({ length: CLIENTS / 2 }, () => bridgeCaller(apiKey))];
    const load = Promise.all(callers.map((call, n) => clientLoad(call, n, anchorId, tally)));
    // The admin CLI finds the running embedded database through .data/runtime.json, during the load.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const second = await admin('bootstrap', '--json', '--name', 'Second Church');
    await load;
    await Promise.all(mcp.map((m) => m.close()));

    // On a failure, the service's own warnings and errors say where it came from (the log holds no personal data).
    if (tally.wrong.length + tally.errors.length > 0) console.error(`service log, warnings and errors:\n${linesMatching(running.output(), WARNINGS_AND_ERRORS)}`);
    expect(tally.calls).toBeGreaterThanOrEqual(2000);
    expect(tally.wrong).toEqual([]);
    expect(tally.errors).toEqual([]);
    expect(second.code).toBe(0);
    const secondOrg = JSON.parse(second.stdout);
    expect(secondOrg.orgId).not.toBe(orgId);

    // Every write is readable afterwards, and the counts add up (the anchor plus every create).
    const call = bridgeCaller(apiKey);
    for (const made of tally.created) {
      const { contact } = await call('people_get_contact', { contactId: made.id });
      expect({ id: contact.id, lastName: contact.lastName, preferredName: contact.preferredName }).toEqual(made);
    }
    const overview = await call('platform_overview', {});
    expect(overview.contacts.total).toBe(tally.created.length + 1);
    // The second organisation sees none of it.
    const other = await bridgeCaller(secondOrg.apiKey)('platform_overview', {});
    expect(other.contacts.total).toBe(0);
    console.info(`embedded load: ${tally.calls} calls, ${tally.created.length} contacts created, 0 wrong, 0 errors`);
  }, 600_000);

  it('stops every process it started within 10 s of SIGTERM under load, and keeps every write', async () => {
    const pgid = running.child.pid!;
    const children = processesUsing(dataDir);
    expect(children.length).toBeGreaterThanOrEqual(2); // postgres (and its backends) and the dev server
    const call = bridgeCaller(apiKey);
    let stopLoad = false;
    let signalled = false;
    let answeredBeforeSignal = 0;
    const background = Promise.all(Array.from({ length: 16 }, async () => {
      // A refused call (the API has closed) waits a little before the next, as a client's retry would:
      // sixteen loops spinning on refusals took a core from the very shutdown this measures.
      while (!stopLoad) {
        await call('people_create_contact', { firstName: 'Late', lastName: 'Caller' })
          .then(() => void (answeredBeforeSignal += signalled ? 0 : 1), () => new Promise((resolve) => setTimeout(resolve, 100)));
      }
    }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    signalled = true;
    const signalledAt = Date.now();
    process.kill(-pgid, 'SIGTERM');
    while ((groupAlive(pgid) || processesUsing(dataDir).length > 0) && Date.now() - signalledAt < 15_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const stoppedAfterMs = Date.now() - signalledAt;
    stopLoad = true;
    await background;
    // A slow stop names its slow step: the launcher reports every step that overran or failed.
    if (stoppedAfterMs >= 10_000) {
      console.error(`npm start's shutdown lines:\n${linesMatching(running.output(), SHUTDOWN_LINES)}\nstill in its process group: ${groupMembers(pgid).join('; ') || 'none'}`);
    }
    expect(processesUsing(dataDir)).toEqual([]);
    expect(groupAlive(pgid)).toBe(false);
    expect(stoppedAfterMs).toBeLessThan(10_000);
    // The stop came under load: calls were being answered until the signal.
    expect(answeredBeforeSignal).toBeGreaterThan(0);
    // The database was shut down cleanly (a fast shutdown), neither killed nor cut short by an immediate one.
    const postgresLog = fs.readFileSync(path.join(dataDir, 'postgres.log'), 'utf8');
    expect(postgresLog).toContain('received fast shutdown request');
    expect(postgresLog).not.toContain('received immediate shutdown request');
    expect(postgresLog).toContain('database system is shut down');
    console.info(`embedded shutdown under load: every process gone ${stoppedAfterMs} ms after SIGTERM`);

    // Started again on the same data: everything written before is there.
    running = await launch();
    const { contact } = await call('people_get_contact', { contactId: tally.created[0].id });
    expect(contact.lastName).toBe(tally.created[0].lastName);
    process.kill(-running.child.pid!, 'SIGTERM');
    await new Promise<void>((resolve) => running.child.once('exit', () => resolve()));
  }, 300_000);
});
