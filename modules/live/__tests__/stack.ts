import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { HarnessOptions } from '../../../test/helpers/harness';
import { call, eventually as eventuallyWithin, sandboxStack } from '../../../test/helpers/sandbox-stack';
import { startStreamingSandbox, streamingSandboxConfigFromEnv } from '../../../sandbox/streaming/server';

export { attempt, call, refusal, type CallError } from '../../../test/helpers/sandbox-stack';

/** The streaming sandbox's stack (test/helpers/sandbox-stack.ts). */
export function streamingStack(options: HarnessOptions = {}) {
  return sandboxStack(['STREAMING_API_URL', 'STREAMING_API_KEY'], () => startStreamingSandbox(streamingSandboxConfigFromEnv({})), options);
}

/** Live's timers run longer: a minute, polled every 300 ms. */
export const eventually = <T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 60_000) => eventuallyWithin(read, check, ms, 300);

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
