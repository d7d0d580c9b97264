import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { allowedOrigins } from '../api/main';
import { listen } from '../api/server';
import { DATA_DIR, RUNTIME_FILE, TEMPORAL_NAMESPACE, resolveTaskQueue, writeRuntimeInfo } from '../db/config';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../db/embedded';
import { createPool } from '../db/pool';
import { startDevServer, type DevServer } from './lib/temporal-dev-server';
import { installWorkerLogging } from '../worker/logging';
import { createTemporalClient } from '../temporal/client';
import { prepareWorker } from '../worker/prepare-worker';

/**
 * `npm start`: the whole service in one command. Uses DATABASE_URL and
 * TEMPORAL_ADDRESS when set; otherwise embedded Postgres (PGlite) and the
 * Temporal CLI dev server, both keeping their data under .data/.
 */
async function main() {
  installWorkerLogging();
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const shutdown = async (signal: string) => {
    console.log(`\n${signal}: shutting down`);
    for (const stop of stops.reverse()) await stop().catch((e) => console.error(String(e)));
    fs.rmSync(RUNTIME_FILE, { force: true });
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const embedded: EmbeddedPostgres = await startEmbeddedPostgres(path.join(DATA_DIR, 'pglite'), Number(process.env.EMBEDDED_PG_PORT ?? 54329));
    stops.push(() => embedded.stop());
    databaseUrl = embedded.databaseUrl;
  }

  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  let uiUrl = process.env.TEMPORAL_UI_URL;
  if (!temporalAddress) {
    const dev: DevServer = await startDevServer({
      port: Number(process.env.TEMPORAL_PORT ?? 7233),
      uiPort: Number(process.env.TEMPORAL_UI_PORT ?? 8233),
      dbFile: path.join(DATA_DIR, 'temporal.db'),
      logFile: path.join(DATA_DIR, 'temporal.log'),
    });
    stops.push(() => dev.stop());
    temporalAddress = dev.address;
    uiUrl = dev.uiUrl;
  }

  const pool = createPool(databaseUrl);
  stops.push(() => pool.end());
  const taskQueue = resolveTaskQueue();
  const { worker, connection: workerConnection } = await prepareWorker({ pool, address: temporalAddress, namespace: TEMPORAL_NAMESPACE, taskQueue });
  const running = worker.run();
  stops.push(async () => {
    worker.shutdown();
    await running;
  });
  // API and worker share one process here, so the API starts calls eagerly on the worker's connection.
  const temporal = createTemporalClient(workerConnection, TEMPORAL_NAMESPACE);

  const port = Number(process.env.PORT ?? 3000);
  const { server, url } = await listen({ pool, temporal, taskQueue, eagerStart: true, allowedOrigins: allowedOrigins() }, port, process.env.HOST ?? '127.0.0.1');
  stops.push(() => closeServer(server));
  writeRuntimeInfo({ databaseUrl, temporalAddress, apiUrl: url, pid: process.pid });

  console.log(`Steward is running
  API          ${url}
  MCP          ${url}/api/mcp
  Temporal UI  ${uiUrl ?? '(external cluster: see its own UI)'}
  Database     ${process.env.DATABASE_URL ? 'DATABASE_URL' : `embedded, ${path.join(DATA_DIR, 'pglite')}`}
Create an organisation and API key:  npm run admin -- bootstrap --json`);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
