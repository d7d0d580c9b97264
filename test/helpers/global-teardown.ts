import type { DevServer } from '../../scripts/lib/temporal-dev-server';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>).__stewardDevServer as DevServer | undefined;
  if (server) await server.stop();
}
