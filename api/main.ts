import { Connection } from '@temporalio/client';
import { DEFAULT_PORTS } from '../db/ports';
import { TEMPORAL_NAMESPACE, resolveDatabaseUrl, resolveTaskQueue, resolveTemporalAddress } from '../db/config';
import { prepareDatabase } from '../modules';
import { createPool } from '../db/pool';
import { listen } from './server';
import { createTemporalClient, payloadCodec } from '../temporal/client';
import { checkPayloadKey } from '../temporal/payload-key-check';

/** `npm run api`: one stateless API replica. */
async function main() {
  const pool = createPool(resolveDatabaseUrl());
  await prepareDatabase(pool);
  // A different key from the workers' is said once here; /readyz keeps answering not ready with the reason.
  const key = await checkPayloadKey(pool, payloadCodec().keyId);
  if (!key.ok) console.error(`not ready: ${key.reason}`);
  const connection = await Connection.connect({ address: resolveTemporalAddress() });
  const temporal = createTemporalClient(connection, TEMPORAL_NAMESPACE);
  const port = Number(process.env.PORT ?? DEFAULT_PORTS.api);
  const { server, url } = await listen({ pool, temporal, taskQueue: resolveTaskQueue(), allowedOrigins: allowedOrigins() }, port, process.env.HOST ?? '127.0.0.1');
  console.log(`API ${url}  MCP ${url}/api/mcp`);
  // SIGTERM or SIGINT: stop taking requests, let open ones finish for up to 5 s (calls already
  // started run on in Temporal; a client retrying with its Idempotency-Key gets their result), then exit.
  const stop = () => {
    console.log('API stopping');
    server.closeIdleConnections();
    const cut = setTimeout(() => server.closeAllConnections(), 5000);
    server.close(() => {
      clearTimeout(cut);
      void Promise.allSettled([pool.end(), connection.close()]).then(() => process.exit(0));
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

export function allowedOrigins(): string[] {
  return (process.env.ALLOWED_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
