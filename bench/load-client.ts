/**
 * The bench's callers, in a process of their own: an MCP client (the SDK's, over streamable HTTP)
 * or an HTTP client of the bridge does real work per call (requests, JSON, the SDK's parsing), and
 * an agent does it on its own machine. Run in the bench's process, that work would be counted as
 * the server's CPU and would compete with the server for the cores. The parent (bench/run.ts)
 * drives this process over IPC; durations are timed here, around the call only.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { measureThroughput, type ThroughputResult } from './stats';

/** `floor-http`: the floor behind a bare HTTP endpoint (bench/floor/http.ts), what HTTP alone adds to it. */
export type RemotePath = 'mcp' | 'bridge' | 'floor-http';
export const READ_TOOL = 'people_get_contact';

interface Target { url: string; apiKey: string; contactId: string; orgId: string; floorUrl: string }

type Request =
  | { op: 'init'; target: Target; clients: number }
  | { op: 'call'; path: RemotePath; tool: string; args: unknown; index: number }
  | { op: 'throughput'; path: RemotePath; tool: string; args: unknown; concurrency: number; calls: number };
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

export async function invokeBridge(url: string, apiKey: string, tool: string, args: unknown): Promise<unknown> {
  const response = await fetch(`${url}/api/agent/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ tool, arguments: args }),
  });
  const body = (await response.json()) as { ok: boolean; result?: unknown; error?: unknown };
  if (!body.ok) throw new Error(`${tool} via /api/agent/invoke failed (${response.status}): ${JSON.stringify(body.error)}`);
  return body.result;
}

/** One call of the floor behind plain HTTP: a JSON request and a JSON answer, as the bridge's, and nothing else. */
async function callFloorOverHttp(floorUrl: string, orgId: string, contactId: string): Promise<void> {
  const response = await fetch(floorUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orgId, contactId }) });
  const body = (await response.json()) as { id?: string } | null;
  if (body?.id !== contactId) throw new Error(`floor over HTTP: expected contact ${contactId}, got ${JSON.stringify(body).slice(0, 200)} (${response.status})`);
}

async function mcpClient(url: string, apiKey: string): Promise<McpClient> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  const client = new McpClient({ name: 'steward-bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Each call's answer is checked, so a fast wrong answer counts as an error, not as speed. */
export function checkerFor(tool: string, contactId: string): (result: unknown) => void {
  if (tool === READ_TOOL) {
    return (result) => {
      const id = (result as { contact?: { id?: string } } | undefined)?.contact?.id;
      if (id !== contactId) throw new Error(`expected contact ${contactId}, got ${JSON.stringify(result).slice(0, 200)}`);
    };
  }
  return (result) => {
    const tools = (result as { tools?: unknown } | undefined)?.tools;
    if (!Array.isArray(tools) || !tools.includes('people_create_contact')) throw new Error(`unexpected search answer ${JSON.stringify(result).slice(0, 200)}`);
  };
}

/** The child's side: holds the MCP clients and makes the calls it is asked for. */
function serve(): void {
  let target: Target | undefined;
  let clients: McpClient[] = [];
  const callerFor = (path: RemotePath, tool: string, args: unknown, index: number) => {
    if (!target) throw new Error('load client: not initialised');
    const { url, apiKey, contactId, orgId, floorUrl } = target;
    if (path === 'floor-http') return () => callFloorOverHttp(floorUrl, orgId, contactId);
    const check = checkerFor(tool, contactId);
    if (path === 'bridge') return async () => check(await invokeBridge(url, apiKey, tool, args));
    const client = clients[index];
    return async () => {
      const result = await client.callTool({ name: tool, arguments: args as Record<string, unknown> });
      if (result.isError) throw new Error(`mcp: ${JSON.stringify(result.content).slice(0, 200)}`);
      check(result.structuredContent);
    };
  };
  const handle = async (request: Request): Promise<unknown> => {
    switch (request.op) {
      case 'init':
        target = request.target;
        clients = await Promise.all(Array.from({ length: request.clients }, () => mcpClient(request.target.url, request.target.apiKey)));
        return null;
      case 'call': {
        const started = performance.now();
        await callerFor(request.path, request.tool, request.args, request.index)();
        return performance.now() - started;
      }
      case 'throughput': {
        const callers = Array.from({ length: request.concurrency }, (_, i) => callerFor(request.path, request.tool, request.args, i));
        return measureThroughput(callers, request.calls);
      }
    }
  };
  process.on('message', (message: { id: number; request: Request }) => {
    handle(message.request).then(
      (value) => process.send!({ id: message.id, ok: true, value } satisfies Reply),
      (error: unknown) => process.send!({ id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) } satisfies Reply),
    );
  });
  process.on('disconnect', () => {
    void Promise.all(clients.map((client) => client.close())).finally(() => process.exit(0));
  });
}

/** The parent's side. */
export interface LoadClient {
  pid: number;
  /** One call; answers its duration in ms, timed in the client process around the call alone. */
  call(path: RemotePath, tool: string, args: unknown, index: number): Promise<number>;
  throughput(path: RemotePath, tool: string, args: unknown, concurrency: number, calls: number): Promise<ThroughputResult>;
  close(): Promise<void>;
}

export async function startLoadClient(target: Target, clients: number): Promise<LoadClient> {
  const child: ChildProcess = fork(__filename, ['--serve'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 0;
  child.on('message', (reply: Reply) => {
    const waiting = pending.get(reply.id);
    pending.delete(reply.id);
    if (!waiting) return;
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(new Error(reply.error));
  });
  child.once('exit', (code) => {
    for (const waiting of pending.values()) waiting.reject(new Error(`load client exited with code ${code}`));
    pending.clear();
  });
  const ask = (request: Request) => new Promise<unknown>((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    child.send({ id, request });
  });
  await ask({ op: 'init', target, clients });
  return {
    pid: child.pid!,
    call: async (path, tool, args, index) => (await ask({ op: 'call', path, tool, args, index })) as number,
    throughput: async (path, tool, args, concurrency, calls) => (await ask({ op: 'throughput', path, tool, args, concurrency, calls })) as ThroughputResult,
    close: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.disconnect();
    }),
  };
}

if (require.main === module && process.argv.includes('--serve')) serve();
