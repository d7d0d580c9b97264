import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { legacyDataNotice, startEmbeddedPostgres } from '../../db/embedded';
import { allMigrations } from '../../modules';
import { freePort } from '../../scripts/lib/temporal-dev-server';

/**
 * A `.data/` an older Steward left (PGlite) is copied into the embedded PostgreSQL server by
 * `npm run admin -- import-pglite`: every row arrives with its types intact, sequences carry on
 * after the imported ids, migrations newer than the old database run over the imported rows,
 * and the old folder is left as it was.
 */
const ROOT = path.resolve(__dirname, '../..');
// The migrations the last PGlite-based version shipped.
const OLD_CHAIN_END = '2026.11.22T02.00.00.outbox-lease';

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npx', args, { cwd: ROOT, env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('import of an older version\'s PGlite data', () => {
  let dataDir: string;
  let port: number;
  const orgId = randomUUID();
  const contactId = randomUUID();

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-import-'));
    fs.chmodSync(dataDir, 0o755);
    port = await freePort();
    await run(['tsx', 'test/helpers/make-pglite-data.ts', path.join(dataDir, 'pglite'), orgId, contactId, OLD_CHAIN_END], process.env);
  }, 60_000);

  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('is announced by npm start, then copied across with nothing lost', async () => {
    expect(legacyDataNotice(dataDir)).toContain('import-pglite');
    const env: NodeJS.ProcessEnv = { ...process.env, STEWARD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) };
    delete env.DATABASE_URL;
    const imported = await run(['tsx', 'scripts/admin.ts', 'import-pglite', '--json'], env);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const report = JSON.parse(imported.stdout);
    const rowsOf = (table: string) => report.tables.find((t: { table: string }) => t.table === table)?.rows;
    expect(rowsOf('organisations')).toBe(1);
    expect(rowsOf('contacts')).toBe(1);
    expect(rowsOf('usage_events')).toBe(3);
    // The old folder is kept, and the notice is gone now that the new cluster exists.
    expect(fs.existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);
    expect(legacyDataNotice(dataDir)).toBeUndefined();

    const embedded = await startEmbeddedPostgres({ dataRoot: dataDir, port });
    const client = new pg.Client({ connectionString: embedded.databaseUrl });
    try {
      await client.connect();
      const contact = await client.query(`SELECT first_name, last_name, to_char(date_of_birth, 'YYYY-MM-DD') AS dob, custom_fields, whatsapp_consent
        FROM contacts WHERE id = $1 AND org_id = $2`, [contactId, orgId]);
      expect(contact.rows).toEqual([{ first_name: 'Ruth', last_name: 'Okafor', dob: '1961-02-03', custom_fields: { shirt: 'L', tags: ['a', 'b'] }, whatsapp_consent: true }]);
      const next = await client.query(`INSERT INTO usage_events (org_id, feature, units, idempotency_key) VALUES ($1, 'contacts', 1, 'new') RETURNING id`, [orgId]);
      expect(Number(next.rows[0].id)).toBe(4);
      // Migrations newer than the old database ran over the imported rows.
      const applied = await client.query('SELECT name FROM steward_migrations ORDER BY name');
      expect(applied.rows.map((r) => r.name)).toEqual(allMigrations().map((m) => m.name));
    } finally {
      await client.end();
      await embedded.stop();
    }
  }, 180_000);
});
