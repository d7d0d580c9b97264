import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import QRCode from 'qrcode';
import { StewardError } from '../../../core/errors';
import { queryOne, type Queryable } from '../../../db/pool';
import { resolvePayloadKey } from '../../../temporal/payload-key';
import { requireContact } from '../contacts';
import { listDefinitions } from '../custom-fields';

/**
 * Member QR codes and visitor card tokens. A member's code encodes a token naming its token record
 * and carrying an HMAC over the organisation, the record and the contact, keyed by
 * PEOPLE_QR_SIGNING_KEY (32+ characters) or a key derived from the deployment's payload key. Only the
 * token's SHA-256 is stored; a new code for the same person revokes their old one, and revoking makes
 * a printed code stop working at once. The image is a PNG drawn by the `qrcode` library.
 */
const MEMBER_PREFIX = 'SMQ1';
const CARD_PREFIX = 'SVC1';
const CARD_SAMPLE_MINUTES = 60;

function signingKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  if (env.PEOPLE_QR_SIGNING_KEY && env.PEOPLE_QR_SIGNING_KEY.length >= 32) return Buffer.from(env.PEOPLE_QR_SIGNING_KEY, 'utf8');
  return createHmac('sha256', resolvePayloadKey()).update('steward people member qr codes').digest();
}
const mac = (payload: string) => createHmac('sha256', signingKey()).update(payload).digest('base64url').slice(0, 32);
/** The people module's signature over a payload (member QR codes, visitor card previews, live viewer passes). */
export const peopleSignature = mac;
const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export async function generateMemberQr(db: Queryable, orgId: string, userId: string, contactId: string, sizePx: number) {
  const contact = await requireContact(db, orgId, contactId);
  const revoked = await db.query('UPDATE people_member_qr_tokens SET revoked_at = now() WHERE org_id = $1 AND contact_id = $2 AND revoked_at IS NULL', [orgId, contactId]);
  const id = randomUUID();
  const token = `${MEMBER_PREFIX}.${id}.${mac(`${orgId}.${id}.${contactId}`)}`;
  const created = await queryOne<{ created_at: Date }>(db, `INSERT INTO people_member_qr_tokens (id, org_id, contact_id, token_hash, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5) RETURNING created_at`, [id, orgId, contactId, hashToken(token), userId]);
  const png = await QRCode.toBuffer(token, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: sizePx });
  return {
    qrId: id, contactId, displayName: contact.displayName, token, mimeType: 'image/png' as const, imageBase64: png.toString('base64'),
    widthPx: sizePx, createdAt: created!.created_at.toISOString(), replacedEarlierCodes: revoked.rowCount ?? 0,
  };
}

export async function revokeMemberQr(db: Queryable, orgId: string, ref: { qrId?: string; contactId?: string }) {
  const result = ref.qrId
    ? await db.query('UPDATE people_member_qr_tokens SET revoked_at = now() WHERE org_id = $1 AND id = $2 AND revoked_at IS NULL', [orgId, ref.qrId])
    : await db.query('UPDATE people_member_qr_tokens SET revoked_at = now() WHERE org_id = $1 AND contact_id = $2 AND revoked_at IS NULL', [orgId, ref.contactId]);
  if ((result.rowCount ?? 0) === 0) {
    throw new StewardError('not_found', `No active member QR code ${ref.qrId ?? `for contact ${ref.contactId}`} was found`, { hint: 'people_generate_member_qr issues one.' });
  }
  return { revoked: result.rowCount ?? 0 };
}

/** What a scanned code says: valid (with the person) only if well formed, signed by this deployment for this organisation, stored and not revoked. */
export async function verifyMemberQr(db: Queryable, orgId: string, token: string) {
  const parts = token.split('.');
  const invalid = (reason: 'malformed' | 'bad_signature' | 'unknown' | 'revoked') => ({ valid: false as const, reason, contactId: null, displayName: null });
  if (parts.length !== 3 || parts[0] !== MEMBER_PREFIX || !/^[0-9a-f-]{36}$/.test(parts[1])) return invalid('malformed');
  const row = await queryOne<{ contact_id: string; token_hash: string; revoked_at: Date | null }>(db,
    'SELECT contact_id, token_hash, revoked_at FROM people_member_qr_tokens WHERE org_id = $1 AND id = $2', [orgId, parts[1]]);
  if (!row) return invalid('unknown');
  if (!sameText(parts[2], mac(`${orgId}.${parts[1]}.${row.contact_id}`)) || !sameText(row.token_hash, hashToken(token))) return invalid('bad_signature');
  if (row.revoked_at) return invalid('revoked');
  const contact = await requireContact(db, orgId, row.contact_id);
  return { valid: true as const, reason: null, contactId: contact.id, displayName: contact.displayName };
}

// ---------------------------------------------------------------- visitor cards

const CARD_FIELDS = [
  { key: 'firstName', label: 'First name', type: 'text', required: true },
  { key: 'lastName', label: 'Last name', type: 'text', required: true },
  { key: 'email', label: 'Email', type: 'email', required: false },
  { key: 'phone', label: 'Phone', type: 'tel', required: false },
  { key: 'addressPostcode', label: 'Postcode', type: 'text', required: false },
  { key: 'firstVisit', label: 'Is this your first visit?', type: 'boolean', required: false },
  { key: 'prayerRequest', label: 'How can we pray for you?', type: 'textarea', required: false },
  { key: 'contactConsent', label: 'May we contact you?', type: 'boolean', required: true },
] as const;

/** The visitor (connect) card's form: the standard fields, then the organisation's custom fields. */
export async function visitorCardForm(db: Queryable, orgId: string) {
  const custom = await listDefinitions(db, orgId);
  return {
    fields: [
      ...CARD_FIELDS.map((field) => ({ ...field, source: 'standard' as const, options: null })),
      ...custom.map((definition) => ({
        key: `custom.${definition.key}`, label: definition.label, type: definition.type, required: false, source: 'custom' as const, options: definition.options ?? null,
      })),
    ],
    consentNote: 'Contact consent is asked on every card; nobody is contacted without it.',
  };
}

/** A signed, short-lived token for previewing the visitor card: it shows the form and can never create a contact. */
export function cardSampleToken(orgId: string, now = Date.now()) {
  const expires = Math.floor(now / 1000) + CARD_SAMPLE_MINUTES * 60;
  const payload = `${CARD_PREFIX}.${orgId}.${expires}.preview`;
  return { token: `${payload}.${mac(payload)}`, expiresAt: new Date(expires * 1000).toISOString(), previewOnly: true as const };
}

export function verifyCardSampleToken(orgId: string, token: string, now = Date.now()): boolean {
  const parts = token.split('.');
  if (parts.length !== 5 || parts[0] !== CARD_PREFIX || parts[1] !== orgId || parts[3] !== 'preview') return false;
  if (Number(parts[2]) * 1000 <= now) return false;
  return sameText(parts[4], mac(parts.slice(0, 4).join('.')));
}
