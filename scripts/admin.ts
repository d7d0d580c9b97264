import { parseArgs } from 'node:util';
import { ALL_SCOPES, parseScopeList } from '../core/scopes';
import { StewardError } from '../core/errors';
import { resolveDatabaseUrl } from '../db/config';
import { migrate } from '../db/migrate';
import { createPool, withTransaction, type Pool } from '../db/pool';
import { createApiKey, revokeApiKey } from '../modules/platform/api-keys';
import { createOrganisation } from '../modules/platform/orgs';
import { createMember, findOwner, generatePassword } from '../modules/platform/users';

const USAGE = `Usage:
  npm run admin -- bootstrap [--name "Grace Church"] [--country GB] [--plan starter] [--email owner@example.org] [--json]
  npm run admin -- apikey create --org <orgId> --scopes people:read,people:write [--name "Zapier"] [--json]
  npm run admin -- apikey revoke --org <orgId> --id <keyId>
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

function requireFlag(flags: Record<string, string | boolean | undefined>, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || !value) throw new StewardError('validation_failed', `--${name} is required`);
  return value;
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
  if (!['bootstrap', 'apikey create', 'apikey revoke'].includes(command)) {
    console.error(USAGE);
    process.exit(2);
  }
  const pool = createPool(resolveDatabaseUrl(), { max: 2 });
  try {
    await migrate(pool);
    let output: Record<string, unknown>;
    if (command === 'bootstrap') output = await bootstrap(pool, values);
    else if (command === 'apikey create') output = await createKey(pool, values);
    else output = { revoked: await revokeApiKey(pool, requireFlag(values, 'org'), requireFlag(values, 'id')) };
    if (values.json) process.stdout.write(`${JSON.stringify(output)}\n`);
    else for (const [k, v] of Object.entries(output)) console.log(`${k}: ${Array.isArray(v) ? v.join(',') : v}`);
  } finally {
    await pool.end();
  }
}

main().catch((error) => {
  console.error(error instanceof StewardError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : error);
  process.exit(1);
});
