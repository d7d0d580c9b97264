import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
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

describe('payloads name their organisation', () => {
  const key = randomBytes(32);
  const orgA = randomUUID();
  const orgB = randomUUID();
  const json = (value: unknown) => defaultPayloadConverter.toPayload(value)!;
  const orgOf = (payload: Payload) => payload.metadata?.['steward-org'] ? Buffer.from(payload.metadata['steward-org']).toString() : undefined;
  const workflow = (workflowId: string) => ({ type: 'workflow' as const, namespace: 'default', workflowId });
  const activity = (workflowId: string) => ({ type: 'activity' as const, namespace: 'default', workflowId, isLocal: true });

  it('takes the organisation from a workflow id that names it, for workflow and activity payloads', async () => {
    const codec = new EncryptionCodec(key);
    const [input] = await codec.encode([json({ content: 'no org here' })], workflow(`call-${orgA}-key-1`));
    const [result] = await codec.encode([json('done')], activity(`agent-run-${orgA}-welfare-2024-01-01T00:00:00Z`));
    expect(orgOf(input)).toBe(orgA);
    expect(orgOf(result)).toBe(orgA);
    expect(defaultPayloadConverter.fromPayload((await codec.decode([input], workflow(`call-${orgA}-key-1`)))[0])).toEqual({ content: 'no org here' });
  });

  it('takes it from orgId or principal.orgId in the value, and remembers it for a proposal workflow', async () => {
    const codec = new EncryptionCodec(key);
    const proposal = workflow(`proposal-${randomUUID()}`);
    const [byPrincipal] = await codec.encode([json({ tool: 'x', principal: { orgId: orgB } })]);
    expect(orgOf(byPrincipal)).toBe(orgB);
    const [start] = await codec.encode([json({ orgId: orgA, proposalId: 'p' })], proposal);
    expect(orgOf(start)).toBe(orgA);
    // A later result of the same workflow names no organisation itself.
    const [later] = await codec.encode([json({ status: 'approved' })], proposal);
    expect(orgOf(later)).toBe(orgA);
    // Another process learns it from opening the workflow's input.
    const other = new EncryptionCodec(key);
    await other.decode([start], proposal);
    expect(orgOf((await other.encode([json('x')], proposal))[0])).toBe(orgA);
  });

  it('leaves a payload un-attributed when no organisation can be told, and it still decodes', async () => {
    const codec = new EncryptionCodec(key);
    const [plain] = await codec.encode([json({ purged: 3 })], workflow('maintenance-run-steward-tools'));
    expect(orgOf(plain)).toBeUndefined();
    expect(defaultPayloadConverter.fromPayload((await codec.decode([plain]))[0])).toEqual({ purged: 3 });
    expect(codec.openForOperator(plain, () => true)).toBeUndefined();
  });

  it('still decodes payloads written before organisations were named', async () => {
    // The earlier format, built by hand: AES-256-GCM over the payload message, no additional data.
    const codec = new EncryptionCodec(key);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = temporal.api.common.v1.Payload.encode(json({ legacy: true })).finish();
    const data = Buffer.concat([iv, cipher.update(body), cipher.final(), cipher.getAuthTag()]);
    const old = { metadata: { encoding: Buffer.from('binary/encrypted'), 'encryption-key-id': Buffer.from(codec.keyId) }, data };
    expect(defaultPayloadConverter.fromPayload((await codec.decode([old], workflow(`call-${orgA}-k`)))[0])).toEqual({ legacy: true });
  });

  it('binds the organisation into the tag: renaming or stripping it breaks decryption', async () => {
    const codec = new EncryptionCodec(key);
    const [sealed] = await codec.encode([json({ note: 'pastoral' })], workflow(`call-${orgA}-k`));
    const renamed = { ...sealed, metadata: { ...sealed.metadata, 'steward-org': Buffer.from(orgB) } };
    const stripped = { ...sealed, metadata: { encoding: sealed.metadata!.encoding, 'encryption-key-id': sealed.metadata!['encryption-key-id'] } };
    await expect(codec.decode([renamed])).rejects.toThrow();
    await expect(codec.decode([stripped])).rejects.toThrow();
    expect(codec.openForOperator(renamed, (org) => org === orgB)).toBeUndefined();
    expect(codec.openForOperator(sealed, (org) => org === orgB)).toBeUndefined();
    expect(defaultPayloadConverter.fromPayload(codec.openForOperator(sealed, (org) => org === orgA)!)).toEqual({ note: 'pastoral' });
  });

  it('refuses a payload sealed for one organisation inside a workflow that names another', async () => {
    const codec = new EncryptionCodec(key);
    const [sealed] = await codec.encode([json({ plan: 1 })], workflow(`call-${orgA}-k`));
    await expect(codec.decode([sealed], workflow(`call-${orgB}-copied`))).rejects.toThrow('another organisation');
  });

  it('operator-made payloads round-trip through the endpoint but Steward refuses them', async () => {
    const codec = new EncryptionCodec(key);
    const made = codec.sealForOperator(json({ forged: 'plan' }), orgA);
    expect(orgOf(made)).toBe(orgA);
    expect(defaultPayloadConverter.fromPayload(codec.openForOperator(made, (org) => org === orgA)!)).toEqual({ forged: 'plan' });
    await expect(codec.decode([made])).rejects.toThrow('operator codec endpoint');
    const unmarked = { ...made, metadata: { ...made.metadata } };
    delete unmarked.metadata['steward-source'];
    await expect(codec.decode([unmarked])).rejects.toThrow();
  });
});
