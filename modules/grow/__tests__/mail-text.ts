import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { startSmtpServer, type TestSmtpServer } from '../../../test/helpers/message-servers';
import { eventually as eventuallyWithin } from '../../../test/helpers/sandbox-stack';

/**
 * What grow's mail suites share: a stack of their own with a real SMTP server and two organisations
 * (St Anne, and Elsewhere for tenancy), reading the raw messages that server received, and waiting on timers.
 */
export interface GrowMailStack {
  harness: Harness;
  smtp: TestSmtpServer;
  org: TestOrg;
  other: TestOrg;
  mcp: McpClient;
  otherMcp: McpClient;
  /** Closes clients, stack and SMTP server, and puts the environment back as it was. */
  close(): Promise<void>;
}

const MAIL_ENV = ['SMTP_HOST', 'SMTP_PORT', 'SMTP_FROM', 'CHANNELS_WEBHOOK_BASE_URL', 'PUBLIC_URL'] as const;

/** The stack, with `env` (a suite's own settings) set before it starts. */
export async function growMailStack(env: Record<string, string> = {}): Promise<GrowMailStack> {
  const saved = Object.fromEntries([...MAIL_ENV, ...Object.keys(env)].map((key) => [key, process.env[key]]));
  const smtp = await startSmtpServer();
  Object.assign(process.env, { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), SMTP_FROM: 'St Anne <news@stanne.example.org>', ...env });
  const harness = await Harness.start({ own: true });
  process.env.CHANNELS_WEBHOOK_BASE_URL = harness.url;
  process.env.PUBLIC_URL = harness.url;
  const org = await harness.createOrg({ name: 'St Anne' });
  const other = await harness.createOrg({ name: 'Elsewhere' });
  const mcp = await harness.mcpClient(org.apiKey);
  const otherMcp = await harness.mcpClient(other.apiKey);
  return {
    harness, smtp, org, other, mcp, otherMcp,
    async close() {
      await otherMcp.close();
      await mcp.close();
      await harness.close();
      await smtp.close();
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    },
  };
}

/** The raw message's subject line. */
export const subjectOf = (raw: string) => /^Subject:\s*(.+)$/im.exec(raw)?.[1]?.trim();

/** The readable text of a raw message: quoted-printable soft breaks joined and =XX decoded. */
export const decoded = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** The same, with folded header lines joined too (a long List-Unsubscribe header). */
export const unfolded = (raw: string) => decoded(raw).replace(/\r?\n[ \t]+/g, ' ');

/** Polls until `check` holds (a campaign or automation timer's effect), failing after `ms`. */
export const eventually = <T>(read: () => T | Promise<T>, check: (value: T) => boolean, ms = 90_000) => eventuallyWithin(async () => read(), check, ms, 300);
