import { parseArgs } from 'node:util';
import { ALL_SCOPES, parseScopeList } from '../core/scopes';
import { StewardError } from '../core/errors';
import path from 'node:path';
import { DATA_DIR, readRuntimeInfo, resolveDatabaseUrl } from '../db/config';
import { startEmbeddedPostgres } from '../db/embedded';
import { DEFAULT_PORTS } from '../db/ports';
import { importPglite, legacyDirOf } from './lib/import-pglite';
import { prepareDatabase } from '../modules';
import { createPool, withTransaction, type Pool } from '../db/pool';
import { createApiKey, revokeApiKey } from '../kernel/api-keys';
import { createOperatorKey, grantPlatformAdmin, revokePlatformAdmin } from '../kernel/operators';
import { userInfo } from 'node:os';
import { createOrganisation } from '../modules/platform/orgs';
import { createMember, findOwner, generatePassword } from '../modules/platform/users';

const USAGE = `Usage:
  npm run admin -- bootstrap [--name "Grace Church"] [--country GB] [--plan starter] [--email owner@example.org] [--json]
  npm run admin -- apikey create --org <orgId> --scopes people:read,people:write [--name "Zapier"] [--json]
  npm run admin -- apikey revoke --org <orgId> --id <keyId>
  npm run admin -- operator grant --email <email> [--json]    (makes a user a platform admin: the installation's operator)
  npm run admin -- operator revoke --email <email> [--json]   (ends the role; their operator keys lose it at once)
  npm run admin -- operator key --email <email> --org <orgId> [--name "Support"] [--json]   (an operator key, shown once)
  npm run admin -- import-pglite [--json]   (copies an older version's .data/pglite into the embedded PostgreSQL server)
Uses DATABASE_URL, or the embedded database of a running \`npm start\`.`;

async function bootstrap(pool: Pool, flags: Record<string, string | boolean | undefined>) {
  const name = (flags.name as string | undefined) ?? 'Steward Church';
  const password = generatePassword();
  return withTransaction(pool, async (db) => {
    const org = await createOrganisation(db, { name, country: flags.country as string | undefined, planCode: flags.plan as string | undefined });
    const ownerEmail = (flags.email as string | undefined) ?? `owner+${org.id.slice(0, 8)}@steward.local`;
    const owner = await createMember(db, { orgId: org.id, email: ownerEmail, password, role: 'owner', safeguarding: true, displayName: 'Owner' });
    const key = await createApiKey(db, { orgId: org.id, userId: owner.userId, name: 'Bootstrap key', scopes: [...ALL_SCOPES] });
    return { orgId: org.id, apiKey: key.apiKey, ownerEmail, ownerPassword: password };
  });
}

async function createKey(pool: Pool, flags: Record<string, string | boolean | undefined>) {
  const orgId = requireFlag(flags, 'org');
  const { scopes, unknown } = parseScopeList(requireFlag(flags, 'scopes'));
  if (unknown.length) throw new StewardError('validation_failed', `Unknown scope(s): ${unknown.join(', ')}`);
  return withTransaction(pool, async (db) => {
    const owner = await findOwner(db, orgId);
    if (!owner) throw new StewardError('not_found', `Organisation ${orgId} was not found`);
    const key = await createApiKey(db, { orgId, userId: owner.userId, name: flags.name as string | undefined, scopes });
    return { apiKey: key.apiKey, scopes: key.scopes, id: key.id };
  });
}

/** The operator role is granted only here, by whoever runs the admin CLI against the database. */
async function operatorCommand(pool: Pool, command: string, flags: Record<string, string | boolean | undefined>): Promise<Record<string, unknown>> {
  const email = requireFlag(flags, 'email');
  return withTransaction(pool, async (db) => {
    if (command === 'operator grant') return grantPlatformAdmin(db, email, `admin CLI (${safeUserName()})`);
    if (command === 'operator revoke') return revokePlatformAdmin(db, email);
    const key = await createOperatorKey(db, { email, orgId: requireFlag(flags, 'org'), name: flags.name as string | undefined });
    return { apiKey: key.apiKey, id: key.id, scopes: [...key.scopes, 'platform:admin'] };
  });
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

function requireFlag(flags: Record<string, string | boolean | undefined>, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || !value) throw new StewardError('validation_failed', `--${name} is required`);
  return value;
}

function printOutput(output: Record<string, unknown>, json: boolean): void {
  if (json) process.stdout.write(`${JSON.stringify(output)}\n`);
  else for (const [k, v] of Object.entries(output)) console.log(`${k}: ${Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : v}`);
}

/**
 * Into DATABASE_URL when set, else into the embedded server (started here for the import
 * when `npm start` is not running: it refuses to start while the old data is unimported).
 */
async function importLegacyData(): Promise<Record<string, unknown>> {
  const legacyDir = legacyDirOf(DATA_DIR);
  const running = process.env.DATABASE_URL ? undefined : readRuntimeInfo();
  if (process.env.DATABASE_URL || running?.databaseUrl) {
    const report = await importPglite(legacyDir, process.env.DATABASE_URL ?? running!.databaseUrl);
    return { imported: report.rows, tables: report.tables, from: legacyDir };
  }
  const embedded = await startEmbeddedPostgres({ dataRoot: DATA_DIR, port: Number(process.env.EMBEDDED_PG_PORT ?? DEFAULT_PORTS.embeddedPostgres) });
  try {
    const report = await importPglite(legacyDir, embedded.databaseUrl);
    return { imported: report.rows, tables: report.tables, from: legacyDir, into: path.join(DATA_DIR, 'postgres') };
  } finally {
    await embedded.stop();
  }
}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      json: { type: 'boolean' }, name: { type: 'string' }, country: { type: 'string' }, plan: { type: 'string' },
      email: { type: 'string' }, org: { type: 'string' }, scopes: { type: 'string' }, id: { type: 'string' },
    },
  });
  const command = positionals.join(' ');
  if (!['bootstrap', 'apikey create', 'apikey revoke', 'import-pglite', 'operator grant', 'operator revoke', 'operator key'].includes(command)) {
    console.error(USAGE);
    process.exit(2);
  }
  if (command === 'import-pglite') {
    printOutput(await importLegacyData(), Boolean(values.json));
    return;
  }
  const pool = createPool(resolveDatabaseUrl(), { max: 2 });
  try {
    await prepareDatabase(pool);
    let output: Record<string, unknown>;
    if (command === 'bootstrap') output = await bootstrap(pool, values);
    else if (command === 'apikey create') output = await createKey(pool, values);
    else if (command.startsWith('operator ')) output = await operatorCommand(pool, command, values);
    else output = { revoked: await revokeApiKey(pool, requireFlag(values, 'org'), requireFlag(values, 'id')) };
    printOutput(output, Boolean(values.json));
  } finally {
    await pool.end();
  }
}

main().catch((error) => {
  console.error(error instanceof StewardError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : error);
  process.exit(1);
});
