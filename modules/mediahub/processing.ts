import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StewardError } from '../../core/errors';
import { queryOne, withTenantTransaction, type Pool } from '../../db/pool';
import { recordJobChange } from '../audit/api';
import { mediaStorage } from '../platform/api';
import { maxItemBytes, type ItemRow } from './items';
import { probeFile } from './probe';

/**
 * One item's processing, as the activity runs it (and runs it again after a crash): counted as an
 * attempt, the upload read from storage, probed, its still written beside it, the original copied
 * under its final key, the row marked ready, and only then the upload removed. Keys are derived
 * from the upload's, so an attempt that died half way writes the same objects again.
 */
export type ProcessOutcome = 'ready' | 'failed' | 'archived' | 'not_processing';

function finalKeyOf(uploadKey: string): string {
  return uploadKey.replace(/^uploads\//, 'media/');
}

function thumbnailKeyOf(uploadKey: string): string {
  return finalKeyOf(uploadKey).replace(/\/[a-z0-9_]+\.[a-z0-9]+$/, '/thumb.jpg');
}

/** A test-only pause (MEDIAHUB_PROCESSING_PAUSE_MS) so a crash test can kill the worker mid-processing. */
async function testPause(beat: () => void): Promise<void> {
  const pause = Number(process.env.MEDIAHUB_PROCESSING_PAUSE_MS ?? 0);
  if (!(pause > 0)) return;
  const until = Date.now() + pause;
  while (Date.now() < until) {
    beat();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function processItem(pool: Pool, orgId: string, itemId: string, beat: () => void = () => undefined): Promise<ProcessOutcome> {
  const claimed = await withTenantTransaction(pool, orgId, (db) => queryOne<ItemRow>(db, `UPDATE mediahub_items
    SET processing_attempts = processing_attempts + 1, updated_at = now() WHERE org_id = $1 AND id = $2 AND status = 'processing' RETURNING *`, [orgId, itemId]));
  if (!claimed) return 'not_processing';
  await testPause(beat);
  const storage = mediaStorage();
  const bytes = await storage.read(claimed.upload_key, maxItemBytes());
  if (!bytes) return markFailed(pool, orgId, itemId, 'The uploaded file is no longer in storage');
  beat();
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'mediahub-'));
  try {
    const file = path.join(dir, `original.${claimed.extension}`);
    await fs.promises.writeFile(file, bytes);
    let probed;
    try {
      probed = await probeFile(file, claimed.kind);
    } catch (error) {
      if (error instanceof StewardError) return markFailed(pool, orgId, itemId, error.message);
      throw error;
    }
    beat();
    const finalKey = finalKeyOf(claimed.upload_key);
    await storage.write(finalKey, bytes, claimed.mime_type);
    let thumbnailKey: string | null = null;
    if (probed.thumbnail) {
      thumbnailKey = thumbnailKeyOf(claimed.upload_key);
      await storage.write(thumbnailKey, probed.thumbnail, 'image/jpeg');
    }
    beat();
    const outcome = await withTenantTransaction(pool, orgId, async (db) => {
      const done = await queryOne<{ status: string }>(db, `UPDATE mediahub_items SET status = 'ready', storage_key = $3, thumbnail_key = $4,
        duration_ms = $5, width = $6, height = $7, codec = $8, waveform = $9::jsonb, failure = NULL, processed_at = now(), updated_at = now()
        WHERE org_id = $1 AND id = $2 AND status = 'processing' RETURNING status`,
      [orgId, itemId, finalKey, thumbnailKey, probed.durationMs, probed.width, probed.height, probed.codec, probed.waveform ? JSON.stringify(probed.waveform) : null]);
      if (!done) return 'not_processing' as const;
      await recordJobChange(db, {
        orgId, channel: 'job:mediahub.process_item', module: 'mediahub', noun: 'item', verb: 'process', target: { type: 'item', id: itemId },
        fields: { status: 'ready', durationMs: probed.durationMs, width: probed.width, height: probed.height, codec: probed.codec, attempt: claimed.processing_attempts },
        previous: { status: 'processing' },
      });
      return 'ready' as const;
    });
    if (outcome === 'ready') await storage.remove([claimed.upload_key]);
    return outcome;
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

export async function markFailed(pool: Pool, orgId: string, itemId: string, reason: string): Promise<ProcessOutcome> {
  const row = await withTenantTransaction(pool, orgId, async (db) => {
    const failed = await queryOne<{ status: string }>(db, `UPDATE mediahub_items SET status = 'failed', failure = $3, updated_at = now()
      WHERE org_id = $1 AND id = $2 AND status = 'processing' RETURNING status`, [orgId, itemId, reason.slice(0, 500)]);
    if (failed) {
      await recordJobChange(db, {
        orgId, channel: 'job:mediahub.process_item', module: 'mediahub', noun: 'item', verb: 'process', target: { type: 'item', id: itemId },
        fields: { status: 'failed', failure: reason.slice(0, 500) }, previous: { status: 'processing' }, outcome: 'failed',
      });
    }
    return failed;
  });
  return row ? 'failed' : 'not_processing';
}
