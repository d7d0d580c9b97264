import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Harness, type HarnessOptions } from './harness';
import { paymentsSandboxConfigFromEnv, startPaymentsSandbox, type PaymentsSandbox } from '../../sandbox/payments/server';

/**
 * A stack of the suite's own with a provider sandbox in front of it: the sandbox starts first and this
 * process's environment points the provider adapter at it (the worker and API run in this process);
 * closing restores the environment as it was. Shared by the suites of store, ticketing and live.
 */
export async function sandboxStack<S extends { env(): Record<string, string>; close(): Promise<void> }>(
  keys: readonly string[], start: () => Promise<S>, options: HarnessOptions = {}, afterStart: (sandbox: S, harness: Harness) => void = () => undefined,
): Promise<{ harness: Harness; sandbox: S; close: () => Promise<void> }> {
  const before = Object.fromEntries(keys.map((key) => [key, process.env[key]]));
  const sandbox = await start();
  Object.assign(process.env, sandbox.env());
  const harness = await Harness.start({ ...options, own: true });
  afterStart(sandbox, harness);
  return {
    harness, sandbox,
    close: async () => {
      await harness.close();
      await sandbox.close();
      for (const key of keys) {
        if (before[key] === undefined) delete process.env[key];
        else process.env[key] = before[key];
      }
    },
  };
}

/** The payment sandbox's stack; the sandbox is then told where Steward's webhooks are. */
export function paymentsStack(): Promise<{ harness: Harness; sandbox: PaymentsSandbox; close: () => Promise<void> }> {
  return sandboxStack(['PAYMENTS_API_URL', 'PAYMENTS_SECRET_KEY', 'PAYMENTS_WEBHOOK_SECRET'], () => startPaymentsSandbox(paymentsSandboxConfigFromEnv({})), {},
    (sandbox, harness) => sandbox.setWebhookBaseUrl(harness.url));
}

export type CallError = { code: string; message: string; hint?: string; details?: any; issues?: any[] };

/**
 * A call over MCP that answers at once (a gated call: approval_required), ok or refused. A refusal
 * before the call (an OAuth scope the credential lacks) is a JSON-RPC error carrying the same body.
 */
export async function attempt(mcp: McpClient, name: string, args: Record<string, unknown>): Promise<{ ok: true; result: any } | { ok: false; error: CallError }> {
  let result;
  try {
    result = await mcp.callTool({ name, arguments: args, _meta: { approvalWaitMs: 0 } }, CallToolResultSchema);
  } catch (error) {
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

/** Polls until `check` holds (a Temporal timer's effect), failing after `ms`. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 30_000, everyMs = 250): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > until) throw new Error(`Timed out waiting; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export const inDays = (days: number, hour = 19) => {
  const date = new Date(Date.now() + days * 86_400_000);
  date.setUTCHours(hour, 0, 0, 0);
  return date.toISOString();
};
