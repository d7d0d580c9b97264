import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Harness } from '../../../test/helpers/harness';
import { paymentsSandboxConfigFromEnv, startPaymentsSandbox, type PaymentsSandbox } from '../../../sandbox/payments/server';

const KEYS = ['PAYMENTS_API_URL', 'PAYMENTS_SECRET_KEY', 'PAYMENTS_WEBHOOK_SECRET'] as const;

/**
 * A stack of the suite's own with the payment sandbox in front of it: the sandbox starts first and
 * this process's environment points the payment adapter at it (the worker runs in this process),
 * then the sandbox is told where Steward's webhooks are.
 */
export async function paymentsStack(): Promise<{ harness: Harness; sandbox: PaymentsSandbox; close: () => Promise<void> }> {
  const before = Object.fromEntries(KEYS.map((key) => [key, process.env[key]]));
  const sandbox = await startPaymentsSandbox(paymentsSandboxConfigFromEnv({}));
  Object.assign(process.env, sandbox.env());
  const harness = await Harness.start({ own: true });
  sandbox.setWebhookBaseUrl(harness.url);
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

/** A call over MCP that answers at once (a gated call: approval_required), ok or refused. */
export async function attempt(mcp: McpClient, name: string, args: Record<string, unknown>): Promise<{ ok: true; result: any } | { ok: false; error: CallError }> {
  const result = await mcp.callTool({ name, arguments: args, _meta: { approvalWaitMs: 0 } }, CallToolResultSchema);
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
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > until) throw new Error(`Timed out waiting; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export const inDays = (days: number, hour = 19) => {
  const date = new Date(Date.now() + days * 86_400_000);
  date.setUTCHours(hour, 0, 0, 0);
  return date.toISOString();
};
