import type { RowOf } from '../../modules/kit';
import type { OAuthSigningKey } from '../models/oauth-signing-keys';
import { randomUUID } from 'node:crypto';
import { jose, type JWK } from './jose';
import { queryOne, queryRows, withTransaction, type Pool, type Queryable } from '../../db/pool';

export const SIGNING_ALG = 'ES256';
// Any constant works; it only has to be the same for every replica creating the first key.
const KEY_CREATION_LOCK_ID = 727_002;

type Key = CryptoKey | Uint8Array;

export interface SigningKey {
  kid: string;
  privateKey: Key;
}

type KeyRow = Pick<RowOf<OAuthSigningKey>, 'kid' | 'alg' | 'public_jwk' | 'private_jwk'>;

/**
 * Access-token signing keys, persisted in Postgres so every API replica signs
 * and verifies with the same keys and tokens survive a restart. The newest
 * unretired key signs; any unretired key verifies, so a rotation does not cut
 * off tokens already issued.
 */
export class SigningKeys {
  private signing: Promise<SigningKey> | undefined;
  private readonly verifying = new Map<string, Promise<Key | undefined>>();

  constructor(private readonly pool: Pool) {}

  signingKey(): Promise<SigningKey> {
    this.signing ??= this.loadOrCreate().catch((error) => {
      this.signing = undefined;
      throw error;
    });
    return this.signing;
  }

  /** The public key a token header's kid names, or undefined for an unknown or retired one. */
  verificationKey(kid: string): Promise<Key | undefined> {
    let key = this.verifying.get(kid);
    if (!key) {
      key = this.loadPublic(kid);
      this.verifying.set(kid, key);
      // Unknown kids are not remembered: a flood of made-up ones must not grow the map.
      void key.then((found) => { if (!found) this.verifying.delete(kid); }, () => this.verifying.delete(kid));
    }
    return key;
  }

  /** The public keys as a JWK Set, for /api/oauth/jwks. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.signingKey();
    const rows = await queryRows<{ kid: string; alg: string; public_jwk: JWK }>(this.pool,
      'SELECT kid, alg, public_jwk FROM oauth_signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC');
    return { keys: rows.map((row) => ({ ...row.public_jwk, kid: row.kid, alg: row.alg, use: 'sig' })) };
  }

  /** Starts signing with a fresh key; the old one keeps verifying until retired. */
  async rotate(): Promise<string> {
    const row = await this.create(this.pool);
    this.signing = importSigning(row);
    return row.kid;
  }

  private async loadPublic(kid: string): Promise<Key | undefined> {
    const row = await queryOne<{ alg: string; public_jwk: JWK }>(this.pool,
      'SELECT alg, public_jwk FROM oauth_signing_keys WHERE kid = $1 AND retired_at IS NULL', [kid]);
    return row ? jose.importJWK(row.public_jwk, row.alg) : undefined;
  }

  private async loadOrCreate(): Promise<SigningKey> {
    const newest = 'SELECT kid, alg, public_jwk, private_jwk FROM oauth_signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1';
    const existing = await queryOne<KeyRow>(this.pool, newest);
    if (existing) return importSigning(existing);
    // Replicas starting together must agree on one first key, hence the lock and the second look.
    const row = await withTransaction(this.pool, async (db) => {
      await db.query('SELECT pg_advisory_xact_lock($1)', [KEY_CREATION_LOCK_ID]);
      return (await queryOne<KeyRow>(db, newest)) ?? this.create(db);
    });
    return importSigning(row);
  }

  private async create(db: Queryable): Promise<KeyRow> {
    const { publicKey, privateKey } = await jose.generateKeyPair(SIGNING_ALG, { extractable: true });
    const row: KeyRow = { kid: randomUUID(), alg: SIGNING_ALG, public_jwk: await jose.exportJWK(publicKey), private_jwk: await jose.exportJWK(privateKey) };
    await db.query('INSERT INTO oauth_signing_keys (kid, alg, public_jwk, private_jwk) VALUES ($1, $2, $3, $4)', [
      row.kid, row.alg, JSON.stringify(row.public_jwk), JSON.stringify(row.private_jwk),
    ]);
    return row;
  }
}

async function importSigning(row: KeyRow): Promise<SigningKey> {
  return { kid: row.kid, privateKey: await jose.importJWK(row.private_jwk, row.alg) };
}
