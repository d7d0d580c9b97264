import fs from 'node:fs';
import pg from 'pg';
import { hashSecret } from '../kernel/api-keys';

const { apiKey } = JSON.parse(fs.readFileSync('/tmp/scratchkey.json', 'utf8'));
const SQL = `
    SELECT k.id, k.org_id, k.user_id, k.scopes, m.role, m.safeguarding,
      k.operator AND EXISTS (SELECT 1 FROM platform_admins a WHERE a.user_id = k.user_id) AS operator
    FROM api_keys k JOIN memberships m ON m.org_id = k.org_id AND m.user_id = k.user_id
    WHERE k.secret_hash = $1 AND k.revoked_at IS NULL`;
const cpuOf = (pid: number) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
(async () => {
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/scratchkey' });
  await client.connect();
  const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p;
  const hash = hashSecret(apiKey);
  const N = 5000;
  for (let round = 0; round < 3; round++) {
    for (const mode of ['unnamed', 'named', 'select1']) {
      const before = cpuOf(pid); const t = process.cpuUsage();
      for (let i = 0; i < N; i++) {
        if (mode === 'unnamed') await client.query(SQL, [hash]);
        else if (mode === 'named') await client.query({ name: 'key-lookup', text: SQL, values: [hash] });
        else await client.query('SELECT $1::text AS x', [hash]);
      }
      const u = process.cpuUsage(t);
      console.log(`${mode}: postgres ${((cpuOf(pid) - before) / N * 1000).toFixed(1)} µs, node ${(((u.user + u.system) / N)).toFixed(1)} µs per query`);
    }
  }
  await client.end();
})();
