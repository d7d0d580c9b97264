/**
 * `npm run bench:models`: what the model layer costs per statement next to the raw `pg` query it
 * replaces, each pair run on the same connection inside one tool transaction (steward_app, RLS on),
 * alternating so background load hits both alike. Also the cost of opening a tenant transaction
 * (role and org setting) against a plain one. Prints a table; writes bench/results/model-layer.json.
 *
 * Uses its own database on DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432/postgres), dropped afterwards.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../db/migrate';
import { createPool, queryOne, queryRows, withTenantTransaction, withTransaction, type PoolClient } from '../db/pool';
import { allMigrations } from '../modules';
import { Contact } from '../modules/people/models';
import { summarise, type LatencySummary } from './stats';

const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CONTACTS = 5000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 400);

type Op = (client: PoolClient, transaction: Awaited<Parameters<Parameters<typeof withTenantTransaction>[2]>[1]>, i: number) => Promise<unknown>;

async function main(): Promise<void> {
  const name = `steward_bench_models_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  // One connection, as a tool transaction has.
  const pool = createPool(url.toString(), { max: 1 });
  try {
    await migrate(pool, allMigrations());
    const orgId = randomUUID();
    const ids: string[] = [];
    await withTransaction(pool, async (client) => {
      await client.query("INSERT INTO organisations (id, name, plan_code) VALUES ($1, 'Bench', 'starter')", [orgId]);
      for (let i = 0; i < CONTACTS; i += 1) ids.push(randomUUID());
      await client.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, phone, date_of_birth, custom_fields)
        SELECT id, $2, 'First' || n, 'Last' || n, 'p' || n || '@bench.example', '+44 7700 ' || n, DATE '1980-01-01' + (n % 10000)::int, '{"size":"M"}'
        FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, n)`, [ids, orgId]);
      await client.query('ANALYZE contacts');
    });
    const pick = (i: number) => ids[(i * 7919) % ids.length];

    const pairs: Array<{ name: string; raw: Op; model: Op }> = [
      {
        name: 'one row by (org, id)',
        raw: (c, _t, i) => queryOne(c, 'SELECT * FROM contacts WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [orgId, pick(i)]),
        model: async (_c, transaction, i) => (await Contact.findOne({ where: { orgId, id: pick(i) }, transaction }))?.get(),
      },
      {
        name: 'page of 25',
        raw: (c, _t, i) => queryRows(c, 'SELECT * FROM contacts WHERE org_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id LIMIT 25 OFFSET $2', [orgId, (i % 100) * 25]),
        model: async (_c, transaction, i) => (await Contact.findAll({ where: { orgId }, order: [['createdAt', 'DESC'], ['id', 'ASC']], limit: 25, offset: (i % 100) * 25, transaction })).map((c) => c.get()),
      },
      {
        name: 'one-column update',
        raw: (c, _t, i) => c.query('UPDATE contacts SET phone = $3, updated_at = now() WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [orgId, pick(i), `+44 ${i}`]),
        model: (_c, transaction, i) => Contact.update({ phone: `+44 ${i}` }, { where: { orgId, id: pick(i) }, transaction }),
      },
      {
        name: 'insert one row',
        raw: (c) => c.query('INSERT INTO contacts (id, org_id, first_name) VALUES ($1, $2, $3) RETURNING *', [randomUUID(), orgId, 'New']),
        model: async (_c, transaction) => (await Contact.create({ id: randomUUID(), orgId, firstName: 'New' }, { transaction })).get(),
      },
    ];

    const results: Record<string, { raw: LatencySummary; model: LatencySummary; addedP50: number }> = {};
    for (const pair of pairs) {
      const raw: number[] = [];
      const model: number[] = [];
      await withTenantTransaction(pool, orgId, async (client, transaction) => {
        for (let i = 0; i < 30; i += 1) { await pair.raw(client, transaction, i); await pair.model(client, transaction, i); }
        for (let i = 0; i < ROUNDS; i += 1) {
          const order = i % 2 === 0 ? (['raw', 'model'] as const) : (['model', 'raw'] as const);
          for (const kind of order) {
            const start = performance.now();
            await pair[kind](client, transaction, i);
            (kind === 'raw' ? raw : model).push(performance.now() - start);
          }
        }
        // Leave the data as it was for the next pair.
        throw new RollbackSignal();
      }).catch((error) => { if (!(error instanceof RollbackSignal)) throw error; });
      const r = summarise(raw);
      const m = summarise(model);
      results[pair.name] = { raw: r, model: m, addedP50: Math.round((m.p50 - r.p50) * 100) / 100 };
    }

    // Opening and committing a transaction: plain BEGIN against the tool's tenant transaction (one extra round trip).
    const plain: number[] = [];
    const tenant: number[] = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      let start = performance.now();
      await withTransaction(pool, (c) => c.query('SELECT 1'), { readOnly: true });
      plain.push(performance.now() - start);
      start = performance.now();
      await withTenantTransaction(pool, orgId, (c) => c.query('SELECT 1'), { readOnly: true });
      tenant.push(performance.now() - start);
    }
    const transactions = { plain: summarise(plain), tenant: summarise(tenant) };

    console.log(`model layer vs raw pg, ${ROUNDS} rounds each, one connection, inside a tenant transaction (ms)`);
    console.log('operation                 raw p50   model p50   added p50   raw p95   model p95');
    for (const [op, v] of Object.entries(results)) {
      console.log(`${op.padEnd(24)} ${v.raw.p50.toFixed(2).padStart(8)} ${v.model.p50.toFixed(2).padStart(11)} ${v.addedP50.toFixed(2).padStart(11)} ${v.raw.p95.toFixed(2).padStart(9)} ${v.model.p95.toFixed(2).padStart(11)}`);
    }
    console.log(`transaction open+commit: plain p50 ${transactions.plain.p50}, tenant (role + org setting) p50 ${transactions.tenant.p50}`);
    const out = path.join(__dirname, 'results', 'model-layer.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify({ at: new Date().toISOString(), rounds: ROUNDS, contacts: CONTACTS, statements: results, transactions }, null, 2)}\n`);
    console.log(`written to ${path.relative(process.cwd(), out)}`);
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

class RollbackSignal extends Error {}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
