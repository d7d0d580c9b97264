import { Connection } from '@temporalio/client';
import { DEFAULT_PORTS } from '../db/ports';
import { TEMPORAL_NAMESPACE, resolveDatabaseUrl, resolveTaskQueue, resolveTemporalAddress } from '../db/config';
import { prepareDatabase } from '../modules';
import { createPool } from '../db/pool';
import { listen } from './server';
import { createTemporalClient } from '../temporal/client';

/** `npm run api`: one stateless API replica. */
async function main() {
  const pool = createPool(resolveDatabaseUrl());
  await prepareDatabase(pool);
  const connection = await Connection.connect({ address: resolveTemporalAddress() });
  const temporal = createTemporalClient(connection, TEMPORAL_NAMESPACE);
  const port = Number(process.env.PORT ?? DEFAULT_PORTS.api);
  const { url } = await listen({ pool, temporal, taskQueue: resolveTaskQueue(), allowedOrigins: allowedOrigins() }, port, process.env.HOST ?? '127.0.0.1');
  console.log(`API ${url}  MCP ${url}/api/mcp`);
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
