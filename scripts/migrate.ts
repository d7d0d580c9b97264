import { resolveDatabaseUrl } from '../db/config';
import { prepareDatabase } from '../modules';
import { createPool } from '../db/pool';

async function main() {
  const pool = createPool(resolveDatabaseUrl(), { max: 2 });
  try {
    const applied = await prepareDatabase(pool);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await pool.end();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
