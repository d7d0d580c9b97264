import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { ALL_SCOPES } from '../../core/scopes';
import { principalForApiKey } from '../../kernel/api-keys';
import { createPool } from '../../db/pool';
import { verifyPassword } from '../../kernel/passwords';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

const ROOT = path.resolve(__dirname, '../..');

interface Run { code: number; stdout: string; stderr: string }

function admin(db: TestDatabase, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile('npx', ['tsx', 'scripts/admin.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: db.url },
      timeout: 60_000,
    }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** stdout must be exactly one JSON object and a newline: nothing else for scripts to trip over. */
function onlyJson(stdout: string): Record<string, any> {
  expect(stdout.endsWith('\n')).toBe(true);
  expect(stdout.trim().split('\n')).toHaveLength(1);
  const value = JSON.parse(stdout);
  expect(typeof value).toBe('object');
  expect(Array.isArray(value)).toBe(false);
  return value;
}

describe('admin CLI', () => {
  let db: TestDatabase;
  let boot: Record<string, any>;

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('bootstrap --json prints exactly one JSON object with the org, key and owner', async () => {
    const run = await admin(db, 'bootstrap', '--json');
    expect(run.code).toBe(0);
    boot = onlyJson(run.stdout);
    expect(Object.keys(boot).sort()).toEqual(['apiKey', 'orgId', 'ownerEmail', 'ownerPassword']);
    expect(boot.orgId).toMatch(/^[0-9a-f-]{36}$/);
    expect(boot.apiKey).toMatch(/^sk_live_[A-Za-z0-9_-]{20,}$/);
    expect(boot.ownerEmail).toMatch(/^[^@\s]+@[^@\s]+$/);
    expect(typeof boot.ownerPassword).toBe('string');
    expect(boot.ownerPassword.length).toBeGreaterThanOrEqual(16);
    // Secrets never go to stderr either.
    expect(run.stderr).not.toContain(boot.apiKey);
    expect(run.stderr).not.toContain(boot.ownerPassword);
  });

  it('bootstrap created a working organisation, owner and all-scope key', async () => {
    const org = await db.pool.query('SELECT name, plan_code FROM organisations WHERE id = $1', [boot.orgId]);
    expect(org.rows).toHaveLength(1);
    const principal = await principalForApiKey(db.pool, boot.apiKey);
    expect(principal).toMatchObject({ orgId: boot.orgId, role: 'owner', credentialKind: 'api_key' });
    expect([...principal!.scopes].sort()).toEqual([...ALL_SCOPES].sort());
    const owner = await db.pool.query(
      'SELECT u.password_hash, m.role, m.safeguarding FROM users u JOIN memberships m ON m.user_id = u.id WHERE lower(u.email) = lower($1) AND m.org_id = $2',
      [boot.ownerEmail, boot.orgId]);
    expect(owner.rows).toHaveLength(1);
    expect(owner.rows[0]).toMatchObject({ role: 'owner', safeguarding: true });
    expect(owner.rows[0].password_hash).not.toContain(boot.ownerPassword);
    expect(await verifyPassword(owner.rows[0].password_hash, boot.ownerPassword)).toBe(true);
    expect(await verifyPassword(owner.rows[0].password_hash, `${boot.ownerPassword}x`)).toBe(false);
  });

  it('stores no plaintext key, only its hash', async () => {
    const { rows } = await db.pool.query('SELECT * FROM api_keys WHERE org_id = $1', [boot.orgId]);
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row.secret_hash).not.toBe(boot.apiKey);
    expect(row.secret_hash).toBe(createHash('sha256').update(boot.apiKey).digest('hex'));
    const secretPart = boot.apiKey.slice('sk_live_'.length);
    expect(JSON.stringify(row)).not.toContain(secretPart);
    expect(boot.apiKey.startsWith(row.display_prefix)).toBe(true);
    expect(row.display_prefix.length).toBeLessThanOrEqual('sk_live_'.length + 4);
  });

  it('each bootstrap makes a new organisation with a new key', async () => {
    const again = onlyJson((await admin(db, 'bootstrap', '--json', '--name', 'Second Church', '--country', 'US')).stdout);
    expect(again.orgId).not.toBe(boot.orgId);
    expect(again.apiKey).not.toBe(boot.apiKey);
    const org = await db.pool.query('SELECT name, country, date_format FROM organisations WHERE id = $1', [again.orgId]);
    expect(org.rows[0]).toEqual({ name: 'Second Church', country: 'US', date_format: 'MDY' });
  });

  it('apikey create --json prints {apiKey, scopes} for a key with just those scopes', async () => {
    const run = await admin(db, 'apikey', 'create', '--org', boot.orgId, '--scopes', 'people:read,people:write', '--json');
    expect(run.code).toBe(0);
    const out = onlyJson(run.stdout);
    expect(out.apiKey).toMatch(/^sk_live_/);
    expect(out.apiKey).not.toBe(boot.apiKey);
    expect(out.scopes).toEqual(['people:read', 'people:write']);
    const principal = await principalForApiKey(db.pool, out.apiKey);
    expect(principal).toMatchObject({ orgId: boot.orgId });
    expect([...principal!.scopes].sort()).toEqual(['people:read', 'people:write']);
    const stored = await db.pool.query('SELECT count(*)::int AS n FROM api_keys WHERE secret_hash = $1 OR secret_hash = $2', [out.apiKey, createHash('sha256').update(out.apiKey).digest('hex')]);
    expect(stored.rows[0].n).toBe(1);
    const plaintext = await db.pool.query("SELECT count(*)::int AS n FROM api_keys WHERE secret_hash LIKE 'sk_live_%' OR display_prefix = $1", [out.apiKey]);
    expect(plaintext.rows[0].n).toBe(0);
  });

  it('apikey create refuses an unknown scope, exits non-zero and creates nothing', async () => {
    const before = (await db.pool.query('SELECT count(*)::int AS n FROM api_keys')).rows[0].n;
    const run = await admin(db, 'apikey', 'create', '--org', boot.orgId, '--scopes', 'people:read,people:teleport', '--json');
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('people:teleport');
    expect((await db.pool.query('SELECT count(*)::int AS n FROM api_keys')).rows[0].n).toBe(before);
  });

  it('apikey create refuses an unknown organisation and missing flags', async () => {
    const unknownOrg = await admin(db, 'apikey', 'create', '--org', '00000000-0000-4000-8000-000000000000', '--scopes', 'people:read', '--json');
    expect(unknownOrg.code).not.toBe(0);
    expect(unknownOrg.stdout).toBe('');
    const noScopes = await admin(db, 'apikey', 'create', '--org', boot.orgId, '--json');
    expect(noScopes.code).not.toBe(0);
    expect(noScopes.stderr).toContain('--scopes');
  });

  it('apikey revoke revokes the key, at once on a connection that has the lookup prepared', async () => {
    const created = onlyJson((await admin(db, 'apikey', 'create', '--org', boot.orgId, '--scopes', 'people:read', '--json')).stdout);
    const id = created.id ?? (await db.pool.query('SELECT id FROM api_keys WHERE secret_hash = $1', [createHash('sha256').update(created.apiKey).digest('hex')])).rows[0].id;
    // One connection, as a busy server's pool reuses its sessions: the lookup is prepared there once.
    const single = createPool(db.url, { max: 1 });
    try {
      expect(await principalForApiKey(single, created.apiKey)).toMatchObject({ orgId: boot.orgId, scopes: ['people:read'] });
      expect(await principalForApiKey(single, created.apiKey)).toBeDefined();
      const prepared = await single.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
      expect(prepared.rows.map((row) => row.name)).toContain('steward:api-key-lookup');
      const run = await admin(db, 'apikey', 'revoke', '--org', boot.orgId, '--id', id, '--json');
      expect(run.code).toBe(0);
      expect(onlyJson(run.stdout)).toEqual({ revoked: true });
      expect(await principalForApiKey(single, created.apiKey)).toBeUndefined();
      expect(await principalForApiKey(db.pool, created.apiKey)).toBeUndefined();
    } finally {
      await single.end();
    }
  });

  it('an unknown command prints usage to stderr and exits non-zero', async () => {
    const run = await admin(db, 'frobnicate');
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage');
  });
});
