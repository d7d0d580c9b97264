import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ApplicationFailure, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

const ENCODING = 'binary/encrypted';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PayloadMessage = temporal.api.common.v1.Payload;

const utf8 = (text: string) => new TextEncoder().encode(text);

/**
 * Encrypts every Temporal payload (tool arguments, results, memos, failure
 * details) with AES-256-GCM before it leaves the process, so workflow history
 * holds no readable pastoral data. GCM also authenticates: a payload not made
 * with our key is refused, so nobody with mere access to Temporal can hand the
 * worker a forged plan (a made-up principal with every scope).
 */
export class EncryptionCodec implements PayloadCodec {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('The payload key must be 32 bytes');
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload));
  }

  private encrypt(payload: Payload): Payload {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    const plain = PayloadMessage.encode(payload).finish();
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return { metadata: { encoding: utf8(ENCODING), 'encryption-key-id': utf8(this.keyId) }, data: sealed };
  }

  private decrypt(payload: Payload): Payload {
    const encoding = payload.metadata?.encoding ? Buffer.from(payload.metadata.encoding).toString() : undefined;
    if (encoding !== ENCODING) {
      throw ApplicationFailure.nonRetryable('Refusing an unencrypted payload: it was not written by this deployment', 'UnencryptedPayload');
    }
    const keyId = Buffer.from(payload.metadata?.['encryption-key-id'] ?? []).toString();
    if (keyId !== this.keyId) {
      throw ApplicationFailure.nonRetryable(`Payload was encrypted with key ${keyId || '(none)'}, not this deployment's key`, 'PayloadKeyMismatch');
    }
    const data = Buffer.from(payload.data ?? []);
    const iv = data.subarray(0, IV_BYTES);
    const tag = data.subarray(data.length - TAG_BYTES);
    const decipher = createDecipheriv(ALGORITHM, this.key, iv);
    decipher.setAuthTag(tag);
    const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    return PayloadMessage.decode(plain);
  }
}
