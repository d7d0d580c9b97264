import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ApplicationFailure, type Payload, type PayloadCodec, type SerializationContext } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { OrgAttribution, isOrgId, orgNamedByWorkflowId } from './payload-org';

const ENCODING = 'binary/encrypted';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PayloadMessage = temporal.api.common.v1.Payload;

/** Clear metadata naming the organisation a payload belongs to (a uuid, not sensitive). */
export const ORG_METADATA_KEY = 'steward-org';
/** Clear metadata marking a payload made by the operator codec endpoint rather than by Steward itself. */
export const SOURCE_METADATA_KEY = 'steward-source';
const OPERATOR_SOURCE = 'operator';

type Source = 'steward' | 'operator';

/** Whom a payload is sealed for; undefined for payloads no organisation could be named for. */
interface Seal {
  orgId: string;
  source: Source;
}

interface Opened {
  payload: Payload;
  seal?: Seal;
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString() : undefined);

/**
 * The organisation and source are bound into the GCM tag as additional data:
 * whoever can edit a payload's clear metadata in Temporal cannot move it to
 * another organisation (or strip the name off) without decryption failing.
 */
function additionalData(seal: Seal): Buffer {
  return Buffer.from(`steward-payload-v1\n${seal.source}\n${seal.orgId}`);
}

function refuse(message: string, type: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, type);
}

/**
 * Encrypts every Temporal payload (tool arguments, results, memos, failure
 * details) with AES-256-GCM before it leaves the process, so workflow history
 * holds no readable pastoral data. GCM also authenticates: a payload not made
 * with our key is refused, so nobody with mere access to Temporal can hand the
 * worker a forged plan (a made-up principal with every scope).
 *
 * Each payload also names its organisation in clear metadata (`steward-org`),
 * when one can be told (see OrgAttribution), sealed into the tag, so the
 * operator codec endpoint can decode it for that organisation's owners and
 * admins only. Payloads written before organisations were named carry no
 * `steward-org` and still decode here.
 */
export class EncryptionCodec implements PayloadCodec {
  readonly keyId: string;

  constructor(private readonly key: Buffer, private readonly attribution = new OrgAttribution()) {
    if (key.length !== 32) throw new Error('The payload key must be 32 bytes');
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const orgId = this.attribution.orgFor(payloads, context);
    return payloads.map((payload) => this.seal(payload, orgId ? { orgId, source: 'steward' } : undefined));
  }

  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return payloads.map((payload) => this.openForSteward(payload, context));
  }

  /**
   * For the operator codec endpoint: the decoded payload when it is sealed for an
   * organisation `mayRead` accepts, else undefined (un-attributed, another
   * organisation's, not ours, or tampered with). Never throws for a bad payload.
   */
  openForOperator(payload: Payload, mayRead: (orgId: string) => boolean): Payload | undefined {
    const orgId = text(payload.metadata?.[ORG_METADATA_KEY]);
    if (!orgId || !mayRead(orgId)) return undefined;
    try {
      return this.open(payload).payload;
    } catch {
      return undefined;
    }
  }

  /**
   * For the operator codec endpoint's /encode: sealed for `orgId` and marked as
   * an operator's, so the endpoint can show it back to that organisation but
   * Steward's workers refuse it (see openForSteward).
   */
  sealForOperator(payload: Payload, orgId: string): Payload {
    return this.seal(payload, { orgId, source: 'operator' });
  }

  private seal(payload: Payload, seal: Seal | undefined): Payload {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    if (seal) cipher.setAAD(additionalData(seal));
    const plain = PayloadMessage.encode(payload).finish();
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    const metadata: Record<string, Uint8Array> = { encoding: utf8(ENCODING), 'encryption-key-id': utf8(this.keyId) };
    if (seal) metadata[ORG_METADATA_KEY] = utf8(seal.orgId);
    if (seal?.source === 'operator') metadata[SOURCE_METADATA_KEY] = utf8(OPERATOR_SOURCE);
    return { metadata, data: sealed };
  }

  /**
   * Workflow data must come from Steward's own processes: an operator-made
   * payload would let an owner hand the worker a plan of their own making, so
   * it is refused. A payload sealed for one organisation is refused in a
   * workflow whose id names another, so a copied payload cannot be replayed
   * under (and its results attributed to) another organisation.
   */
  private openForSteward(payload: Payload, context: SerializationContext | undefined): Payload {
    const { payload: plain, seal } = this.open(payload);
    if (!seal) return plain;
    if (seal.source === 'operator') {
      throw refuse('Refusing a payload made by the operator codec endpoint: workflow data comes only from Steward itself', 'OperatorPayload');
    }
    const named = orgNamedByWorkflowId(context?.workflowId);
    if (named && named !== seal.orgId.toLowerCase()) {
      throw refuse('Refusing a payload sealed for another organisation than its workflow', 'PayloadOrgMismatch');
    }
    this.attribution.remember(context, seal.orgId);
    return plain;
  }

  private open(payload: Payload): Opened {
    const encoding = text(payload.metadata?.encoding);
    if (encoding !== ENCODING) {
      throw refuse('Refusing an unencrypted payload: it was not written by this deployment', 'UnencryptedPayload');
    }
    const keyId = text(payload.metadata?.['encryption-key-id']) ?? '';
    if (keyId !== this.keyId) {
      throw refuse(`Payload was encrypted with key ${keyId || '(none)'}, not this deployment's key`, 'PayloadKeyMismatch');
    }
    const seal = this.sealOf(payload);
    const data = Buffer.from(payload.data ?? []);
    if (data.length < IV_BYTES + TAG_BYTES) throw refuse('Refusing a truncated encrypted payload', 'PayloadMalformed');
    const iv = data.subarray(0, IV_BYTES);
    const tag = data.subarray(data.length - TAG_BYTES);
    const decipher = createDecipheriv(ALGORITHM, this.key, iv);
    if (seal) decipher.setAAD(additionalData(seal));
    decipher.setAuthTag(tag);
    const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    return { payload: PayloadMessage.decode(plain), seal };
  }

  /** The seal named by the clear metadata; the tag check in open() proves it. */
  private sealOf(payload: Payload): Seal | undefined {
    const orgId = text(payload.metadata?.[ORG_METADATA_KEY]);
    const source = text(payload.metadata?.[SOURCE_METADATA_KEY]);
    if (source !== undefined && source !== OPERATOR_SOURCE) throw refuse('Refusing a payload of unknown source', 'PayloadMalformed');
    if (orgId === undefined) {
      if (source) throw refuse('Refusing an operator payload that names no organisation', 'PayloadMalformed');
      return undefined;
    }
    if (!isOrgId(orgId)) throw refuse('Refusing a payload whose organisation is not an id', 'PayloadMalformed');
    return { orgId, source: source ? 'operator' : 'steward' };
  }
}

/** The organisation a payload's clear metadata names (unproven until it is opened). */
export function payloadOrgOf(payload: Payload): string | undefined {
  return text(payload.metadata?.[ORG_METADATA_KEY]);
}
