import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { type CrashTestApi, exited, startCrashTestApi, startWorkerProcess } from '../../../test/helpers/worker-process';
import { makeWav, putTo, until } from './fixtures';

/**
 * An upload's processing survives its worker dying: the worker is a separate `node worker/main.ts`,
 * held mid-processing (MEDIAHUB_PROCESSING_PAUSE_MS, heartbeating) and SIGKILLed there; the item
 * stays processing; a restarted worker picks the workflow up, the heartbeat timeout retries the
 * activity, and the item becomes ready on the second attempt with the same results.
 */
jest.setTimeout(240_000);

describe('mediahub processing survives a worker crash', () => {
  let api: CrashTestApi;
  const taskQueue = `mediahub-crash-${randomBytes(6).toString('hex')}`;
  const workers: ChildProcess[] = [];
  const saved = { ...process.env };

  beforeAll(async () => {
    api = await startCrashTestApi(workers, { taskQueue, orgName: 'Crash Chapel' });
    process.env.PUBLIC_URL = api.url;
  });

  afterAll(async () => {
    await api?.close();
    process.env = saved;
  });

  async function invoke(tool: string, args: unknown) {
    const response = await fetch(`${api.url}/api/agent/invoke`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${api.apiKey}` }, body: JSON.stringify({ tool, arguments: args }),
    });
    const body = (await response.json()) as { ok: boolean; result?: any; error?: any };
    if (!body.ok) throw new Error(`${tool}: ${JSON.stringify(body.error)}`);
    return body.result;
  }

  const row = async (itemId: string) => (await api.db.pool.query('SELECT status, processing_attempts, duration_ms FROM mediahub_items WHERE id = $1', [itemId])).rows[0];

  it('killed mid-processing: the restarted worker finishes it', async () => {
    let worker = await startWorkerProcess(workers, { databaseUrl: api.db.url, taskQueue, env: { PUBLIC_URL: api.url, MEDIAHUB_PROCESSING_PAUSE_MS: '120000' } });
    const wav = makeWav(2);
    const begun = await invoke('mediahub_begin_upload', { fileName: 'crash.wav', fileSize: wav.length });
    expect((await putTo(begun, wav)).status).toBe(200);
    await invoke('mediahub_complete_upload', { itemId: begun.itemId });
    // The first attempt has claimed the item and is holding (heartbeating): kill the worker there.
    await until(() => row(begun.itemId), (r) => r.processing_attempts === 1);
    worker.kill('SIGKILL');
    await exited(worker);
    expect(await row(begun.itemId)).toMatchObject({ status: 'processing', processing_attempts: 1 });

    worker = await startWorkerProcess(workers, { databaseUrl: api.db.url, taskQueue, env: { PUBLIC_URL: api.url, MEDIAHUB_PROCESSING_PAUSE_MS: '0' } });
    const done = await until(() => row(begun.itemId), (r) => r.status !== 'processing', 120_000);
    expect(done).toMatchObject({ status: 'ready', processing_attempts: 2, duration_ms: 2000 });
    const item = (await invoke('mediahub_get_item', { itemId: begun.itemId })).item;
    expect(item).toMatchObject({ status: 'ready', codec: 'pcm_s16le', durationSeconds: 2 });
    worker.kill('SIGTERM');
    await exited(worker);
  });
});
