import { StewardError } from '../../core/errors';
import { queryOne, withTenantTransaction, type Pool } from '../../db/pool';
import { recordJobChange } from '../audit/api';
import { mediaStorage } from '../platform/api';

/**
 * Transcription through a provider adapter: TRANSCRIPTION_API_URL and TRANSCRIPTION_API_KEY name a
 * hosted speech-to-text API (`POST /v1/transcriptions`, bearer key, `{ audioUrl, language }` →
 * `{ text }`); sandbox/transcription/server.ts is the local one. The provider is handed a
 * short-lived presigned URL of the episode's audio (or video), never the bytes through Steward.
 */
export interface TranscriptionProvider {
  transcribe(input: { audioUrl: string; language: string }): Promise<{ text: string }>;
}

export function transcriptionConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.TRANSCRIPTION_API_URL && env.TRANSCRIPTION_API_KEY);
}

export function transcriptionProvider(env: NodeJS.ProcessEnv = process.env): TranscriptionProvider {
  const base = env.TRANSCRIPTION_API_URL;
  const key = env.TRANSCRIPTION_API_KEY;
  if (!base || !key) {
    throw new StewardError('not_configured', 'No transcription provider is configured', { hint: 'Set TRANSCRIPTION_API_URL and TRANSCRIPTION_API_KEY (the local sandbox provides both).' });
  }
  return {
    async transcribe(input) {
      const response = await fetch(`${base.replace(/\/+$/, '')}/v1/transcriptions`, {
        method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(input), signal: AbortSignal.timeout(600_000),
      });
      // 5xx and 429 are the provider's trouble: thrown as plain errors, so the activity is retried.
      if (response.status >= 500 || response.status === 429) throw new Error(`transcription provider answered ${response.status}`);
      if (!response.ok) throw new StewardError('unavailable', `The transcription provider refused the audio (${response.status})`);
      const body = await response.json() as { text?: unknown };
      if (typeof body.text !== 'string') throw new Error('transcription provider answered without text');
      return { text: body.text.slice(0, 500_000) };
    },
  };
}

/** How long the provider's URL of the audio works. */
const PROVIDER_URL_SECONDS = 3600;

export type TranscribeOutcome = { status: 'ready' | 'failed' | 'not_requested' };

export async function transcribeEpisode(pool: Pool, orgId: string, episodeId: string): Promise<TranscribeOutcome> {
  const source = await withTenantTransaction(pool, orgId, (db) => queryOne<{ storage_key: string | null; mime_type: string; transcript_status: string }>(db, `
    SELECT i.storage_key, i.mime_type, e.transcript_status FROM mediahub_episodes e
    LEFT JOIN mediahub_items i ON i.org_id = e.org_id AND i.id = COALESCE(e.audio_item_id, e.video_item_id) AND i.status = 'ready'
    WHERE e.org_id = $1 AND e.id = $2`, [orgId, episodeId]), { readOnly: true });
  if (!source || source.transcript_status !== 'requested') return { status: 'not_requested' };
  const finish = (status: 'ready' | 'failed', text: string | null) => withTenantTransaction(pool, orgId, async (db) => {
    const moved = await db.query(`UPDATE mediahub_episodes
      SET transcript_status = $3, transcript = COALESCE($4, transcript), updated_at = now() WHERE org_id = $1 AND id = $2 AND transcript_status = 'requested'`,
    [orgId, episodeId, status, text]);
    if ((moved.rowCount ?? 0) === 0) return;
    // The transcript itself is content: the trail keeps a reference to it only.
    await recordJobChange(db, {
      orgId, channel: 'job:mediahub.transcribe', module: 'mediahub', noun: 'transcript', verb: 'complete', target: { type: 'episode', id: episodeId },
      fields: { transcriptStatus: status, ...(text === null ? {} : { transcriptContent: text }) }, previous: { transcriptStatus: 'requested' },
      outcome: status === 'ready' ? 'success' : 'failed',
    });
  });
  if (!source.storage_key) {
    await finish('failed', null);
    return { status: 'failed' };
  }
  const audioUrl = await mediaStorage().presignGet(source.storage_key, { expiresInSeconds: PROVIDER_URL_SECONDS, contentType: source.mime_type });
  try {
    const { text } = await transcriptionProvider().transcribe({ audioUrl, language: 'en' });
    await finish('ready', text);
    return { status: 'ready' };
  } catch (error) {
    if (error instanceof StewardError) {
      await finish('failed', null);
      return { status: 'failed' };
    }
    throw error;
  }
}
