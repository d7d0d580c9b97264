import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { payloadCodec } from '../../temporal/client';
import { EncryptionCodec } from '../../temporal/payload-codec';
import { checkPayloadKey } from '../../temporal/payload-key-check';
import { writeFileAtomically } from '../../worker/bundle';
import { startCrashTestApi, startWorkerProcess, type CrashTestApi } from '../helpers/worker-process';

/** Separate processes with different payload keys: the worker refuses to start and /readyz says why. */
describe('payload key check across processes', () => {
  const workers: ChildProcess[] = [];
  let api: CrashTestApi;
  const taskQueue = `key-check-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    api = await startCrashTestApi(workers, { taskQueue, orgName: 'Key Check Parish' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('records the first key, is ready with it, and says why not once the recorded key is another', async () => {
    const ready = await fetch(`${api.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: true, temporal: true, payloadKey: true } });
    const recorded = await api.db.pool.query('SELECT key_id FROM payload_key_fingerprint');
    expect(recorded.rows).toEqual([{ key_id: payloadCodec().keyId }]);

    const otherKeyId = new EncryptionCodec(randomBytes(32)).keyId;
    await api.db.pool.query('UPDATE payload_key_fingerprint SET key_id = $1', [otherKeyId]);
    try {
      const refused = await fetch(`${api.url}/readyz`);
      expect(refused.status).toBe(503);
      const body = await refused.json() as { status: string; checks: Record<string, boolean>; reasons: string[] };
      expect(body.status).toBe('not_ready');
      expect(body.checks).toEqual({ database: true, temporal: true, payloadKey: false });
      expect(body.reasons).toHaveLength(1);
      expect(body.reasons[0]).toContain(`key id ${payloadCodec().keyId}`);
      expect(body.reasons[0]).toContain(`key id ${otherKeyId}`);
      expect(body.reasons[0]).toContain('STEWARD_PAYLOAD_KEY');
      // The reason names fingerprints only, never the key.
      expect(body.reasons[0]).not.toContain(process.env.STEWARD_PAYLOAD_KEY!);
    } finally {
      await api.db.pool.query('UPDATE payload_key_fingerprint SET key_id = $1', [payloadCodec().keyId]);
    }
  });

  it('keeps the first key recorded when two differ at once', async () => {
    const before = await checkPayloadKey(api.db.pool, payloadCodec().keyId);
    expect(before.ok).toBe(true);
    const other = await checkPayloadKey(api.db.pool, new EncryptionCodec(randomBytes(32)).keyId);
    expect(other).toMatchObject({ ok: false, recordedKeyId: payloadCodec().keyId });
  });

  it('a worker given another key refuses to start, naming the mismatch, and never polls', async () => {
    const otherKey = randomBytes(32).toString('base64');
    await expect(startWorkerProcess(workers, { databaseUrl: api.db.url, taskQueue, env: { STEWARD_PAYLOAD_KEY: otherKey } }))
      .rejects.toThrow(/worker exited \(1\) before polling: .*payload key \(key id [0-9a-f]{16}\) is not the deployment's/s);
    // The recorded key is unchanged, and a worker with the right key starts.
    expect((await api.db.pool.query('SELECT key_id FROM payload_key_fingerprint')).rows).toEqual([{ key_id: payloadCodec().keyId }]);
    const good = await startWorkerProcess(workers, { databaseUrl: api.db.url, taskQueue });
    expect(good.exitCode).toBeNull();
    const call = await fetch(`${api.url}/api/agent/invoke`, {
      method: 'POST', headers: { authorization: `Bearer ${api.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'people_create_contact', arguments: { firstName: 'Kay', lastName: 'Check' } }),
    });
    expect(call.status).toBe(200);
  });
});

describe('the shared workflow bundle is written atomically', () => {
  it('a reader never sees a part-written file while writers replace it, and no temporary file is left', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-bundle-'));
    const file = path.join(dir, 'workflow-bundle.js');
    const versionsSource = "['a', 'b', 'c'].map((letter) => `// ${letter}\\n${letter.repeat(4 * 1024 * 1024)}\\n// end ${letter}\\n`)";
    const versions = eval(versionsSource) as string[];
    writeFileAtomically(file, versions[0]!);
    let reads = 0;
    for (let round = 0; round < 20; round++) {
      writeFileAtomically(file, versions[round % 3]!);
      const seen = fs.readFileSync(file, 'utf8');
      expect(versions).toContain(seen);
      reads++;
    }
    // Across processes: three writers at once, a reader polling meanwhile.
    const { spawn } = await import('node:child_process');
    const writerSource = `const { writeFileAtomically } = require(${JSON.stringify(path.resolve(__dirname, '../../worker/bundle'))});
const v = ${versionsSource}; for (let i = 0; i < 15; i++) writeFileAtomically(${JSON.stringify(file)}, v[(i + Number(process.argv[1])) % 3]);`;
    const writers = [0, 1, 2].map((n) => spawn(process.execPath, ['--import', 'tsx', '-e', writerSource, String(n)], { stdio: 'ignore' }));
    const done = Promise.all(writers.map((child) => new Promise<number | null>((resolve) => child.once('exit', resolve))));
    let finished = false;
    void done.then(() => (finished = true));
    while (!finished) {
      expect(versions).toContain(fs.readFileSync(file, 'utf8'));
      reads++;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await done).toEqual([0, 0, 0]);
    expect(reads).toBeGreaterThan(20);
    expect(fs.readdirSync(dir)).toEqual(['workflow-bundle.js']);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
