import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec } from '../../temporal/payload-codec';

describe('payload encryption codec', () => {
  const codec = new EncryptionCodec(randomBytes(32));
  const payload = defaultPayloadConverter.toPayload({ content: 'Red note: safeguarding concern about Sam' })!;

  it('round-trips and leaves no plaintext in the encoded payload', async () => {
    const [encoded] = await codec.encode([payload]);
    expect(Buffer.from(encoded.data!).toString('latin1')).not.toContain('safeguarding');
    expect(Buffer.from(encoded.metadata!.encoding!).toString()).toBe('binary/encrypted');
    const [decoded] = await codec.decode([encoded]);
    expect(defaultPayloadConverter.fromPayload(decoded)).toEqual({ content: 'Red note: safeguarding concern about Sam' });
  });

  it('uses a fresh IV every time', async () => {
    const [a] = await codec.encode([payload]);
    const [b] = await codec.encode([payload]);
    expect(Buffer.from(a.data!).equals(Buffer.from(b.data!))).toBe(false);
  });

  it('refuses tampered, unencrypted and foreign-key payloads', async () => {
    const [encoded] = await codec.encode([payload]);
    const tampered = { ...encoded, data: Buffer.from(encoded.data!).map((byte, i) => (i === 20 ? byte ^ 1 : byte)) };
    await expect(codec.decode([tampered])).rejects.toThrow();
    await expect(codec.decode([payload])).rejects.toThrow('unencrypted payload');
    const other = new EncryptionCodec(randomBytes(32));
    await expect(other.decode([encoded])).rejects.toThrow('not this deployment');
  });

  it('needs a 32-byte key', () => {
    expect(() => new EncryptionCodec(randomBytes(16))).toThrow('32 bytes');
  });
});
