import { queryOne, type Queryable } from '../db/pool';

/**
 * Every API and worker of one deployment must seal Temporal payloads with the same key, or a
 * worker cannot open what the API started (the workflow task fails and is retried for ever) and
 * the API cannot read results. The first process to start records the key's fingerprint (its
 * `encryption-key-id`, already in every payload's clear metadata, never the key itself); the
 * others compare theirs with it. A worker refuses to start on a mismatch; the API's /readyz
 * answers not ready with the reason.
 */
export type PayloadKeyCheck = { ok: true; keyId: string } | { ok: false; keyId: string; recordedKeyId: string; reason: string };

export class PayloadKeyMismatchError extends Error {
  constructor(readonly check: Extract<PayloadKeyCheck, { ok: false }>) {
    super(check.reason);
    this.name = 'PayloadKeyMismatchError';
  }
}

export function mismatchReason(keyId: string, recordedKeyId: string): string {
  return `This process's payload key (key id ${keyId}) is not the deployment's (key id ${recordedKeyId}): `
    + 'give every API and worker the same STEWARD_PAYLOAD_KEY (or the same .data/payload.key). '
    + 'If the deployment\'s key was changed on purpose, workflows sealed with the old key cannot be read; '
    + 'after they have finished, clear the record with `DELETE FROM payload_key_fingerprint` and restart.';
}

/** Records `keyId` if no process has yet (the first wins a race), then compares it with the recorded one. */
export async function checkPayloadKey(db: Queryable, keyId: string): Promise<PayloadKeyCheck> {
  await db.query('INSERT INTO payload_key_fingerprint (id, key_id) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [keyId]);
  const row = await queryOne<{ key_id: string }>(db, 'SELECT key_id FROM payload_key_fingerprint WHERE id = 1');
  const recordedKeyId = row?.key_id ?? keyId;
  return recordedKeyId === keyId ? { ok: true, keyId } : { ok: false, keyId, recordedKeyId, reason: mismatchReason(keyId, recordedKeyId) };
}

/** The same, for a worker's start: throws the reason on a mismatch. */
export async function assertPayloadKey(db: Queryable, keyId: string): Promise<void> {
  const check = await checkPayloadKey(db, keyId);
  if (!check.ok) throw new PayloadKeyMismatchError(check);
}
