import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Harness, type HarnessOptions } from '../../../test/helpers/harness';
import { startStreamingSandbox, streamingSandboxConfigFromEnv, type StreamingSandbox } from '../../../sandbox/streaming/server';

const KEYS = ['STREAMING_API_URL', 'STREAMING_API_KEY'] as const;

/**
 * A stack of the suite's own with the streaming sandbox in front of it: the sandbox starts first and
 * this process's environment points the provider adapter at it (the worker and API run in this process).
 */
export async function streamingStack(options: HarnessOptions = {}): Promise<{ harness: Harness; sandbox: StreamingSandbox; close: () => Promise<void> }> {
  const before = Object.fromEntries(KEYS.map((key) => [key, process.env[key]]));
  const sandbox = await startStreamingSandbox(streamingSandboxConfigFromEnv({}));
  Object.assign(process.env, sandbox.env());
  const harness = await Harness.start({ ...options, own: true });
  return {
    harness, sandbox,
    close: async () => {
      await harness.close();
      await sandbox.close();
      for (const key of KEYS) {
        if (before[key] === undefined) delete process.env[key];
        else process.env[key] = before[key];
      }
    },
  };
}

export type CallError = { code: string; message: string; hint?: string; details?: any; issues?: any[] };

export async function attempt(mcp: McpClient, name: string, args: Record<string, unknown>): Promise<{ ok: true; result: any } | { ok: false; error: CallError }> {
  let result;
  try {
    result = await mcp.callTool({ name, arguments: args, _meta: { approvalWaitMs: 0 } }, CallToolResultSchema);
  } catch (error) {
    // A refusal before the call (a scope the credential lacks) is a JSON-RPC error carrying the same body.
    const data = (error as { data?: CallError }).data;
    if (data?.code) return { ok: false, error: data };
    const body = /endpoint: (\{.*\})\s*$/s.exec(String((error as Error).message))?.[1];
    const parsed = body ? (JSON.parse(body) as { error?: { data?: CallError } }).error?.data : undefined;
    if (parsed?.code) return { ok: false, error: parsed };
    throw error;
  }
  if (!result.isError) return { ok: true, result: result.structuredContent };
  return { ok: false, error: JSON.parse((result.content as Array<{ text: string }>)[0]!.text).error };
}

export async function call(mcp: McpClient, name: string, args: Record<string, unknown>): Promise<any> {
  const outcome = await attempt(mcp, name, args);
  if (!outcome.ok) throw new Error(`${name} failed: ${JSON.stringify(outcome.error)}`);
  return outcome.result;
}

export async function refusal(mcp: McpClient, name: string, args: Record<string, unknown>): Promise<CallError> {
  const outcome = await attempt(mcp, name, args);
  if (outcome.ok) throw new Error(`${name} unexpectedly succeeded: ${JSON.stringify(outcome.result)}`);
  return outcome.error;
}

export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > until) throw new Error(`Timed out waiting; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** A viewer's browser token (what the page keeps in localStorage). */
export const viewerToken = (n: number | string) => `viewer-token-${String(n).padStart(6, '0')}`;

/** A POST to the public viewer API, as a stranger's browser sends it. */
export async function publicPost(base: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** A weekly series in UTC whose first instance starts `minutesAhead` from now (rounded to the minute); its instance. */
export async function serviceSoon(mcp: McpClient, title: string, minutesAhead: number, durationMinutes = 60): Promise<{ id: string; startsAt: string; endsAt: string }> {
  const start = new Date(Date.now() + minutesAhead * 60_000);
  const { upcoming } = await call(mcp, 'schedule_create_series', {
    title, rrule: 'FREQ=WEEKLY', startDate: start.toISOString().slice(0, 10), startTime: start.toISOString().slice(11, 16), durationMinutes, timeZone: 'UTC',
  });
  return upcoming[0];
}
