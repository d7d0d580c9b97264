import fs from 'node:fs';
import pg from 'pg';
import { ORG_SETTINGS_READ } from '../modules/platform/orgs';

const { orgId } = JSON.parse(fs.readFileSync('/tmp/scratchkey.json', 'utf8'));
const PLAIN = `SELECT set_config('role', $1, true), set_config('steward.org_id', $2, true)`;
const READING = `${PLAIN}, (${ORG_SETTINGS_READ}) AS first_read`;
const cpuOf = (pid: number) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
(async () => {
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/scratchkey' });
  await client.connect();
  const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p;
  const N = 4000;
  for (let round = 0; round < 2; round++) {
    for (const [label, text] of [['plain', PLAIN], ['reading', READING]] as const) {
      for (const named of [false, true]) {
        const before = cpuOf(pid);
        for (let i = 0; i < N; i++) {
          await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
          await client.query(named ? { name: `t-${label}`, text, values: ['steward_app', orgId] } : { text, values: ['steward_app', orgId] });
          await client.query('COMMIT');
        }
        console.log(`${label} ${named ? 'named' : 'unnamed'}: postgres ${((cpuOf(pid) - before) / N * 1000).toFixed(1)} µs per BEGIN + statement + COMMIT`);
      }
    }
  }
  await client.end();
})();
