/**
 * Builds the `.data/pglite` an older Steward would have left: its migrations and a few rows.
 * Run as its own process (`tsx test/helpers/make-pglite-data.ts <dir> <orgId> <contactId> <lastMigration>`),
 * because PGlite loads its WebAssembly through dynamic import, which Jest's module sandbox refuses.
 */
import { PGlite } from '@electric-sql/pglite';
import { allMigrations } from '../../modules';

async function main() {
  const [dir, orgId, contactId, lastMigration] = process.argv.slice(2);
  const legacy = await PGlite.create(dir);
  await legacy.exec('CREATE TABLE steward_migrations (name text PRIMARY KEY, run_at timestamptz NOT NULL DEFAULT now())');
  for (const migration of allMigrations().filter((m) => m.name <= lastMigration)) {
    await legacy.exec(migration.up);
    await legacy.query('INSERT INTO steward_migrations (name) VALUES ($1)', [migration.name]);
  }
  await legacy.query(`INSERT INTO organisations (id, name, country, plan_code) VALUES ($1, 'Old Church', 'GB', 'growth')`, [orgId]);
  await legacy.query(`INSERT INTO contacts (id, org_id, first_name, last_name, date_of_birth, custom_fields, whatsapp_consent)
    VALUES ($1, $2, 'Ruth', 'Okafor', '1961-02-03', '{"shirt":"L","tags":["a","b"]}', true)`, [contactId, orgId]);
  for (let i = 0; i < 3; i += 1) {
    await legacy.query(`INSERT INTO usage_events (org_id, feature, units, idempotency_key) VALUES ($1, 'contacts', 1, $2)`, [orgId, `old-${i}`]);
  }
  await legacy.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
