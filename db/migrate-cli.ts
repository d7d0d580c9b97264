import { resolveDatabaseUrl } from './config';
import { migrate } from './migrate';
import { createPool } from './pool';

async function main() {
  const pool = createPool(resolveDatabaseUrl(), { max: 2 });
  try {
    const applied = await migrate(pool);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await pool.end();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
