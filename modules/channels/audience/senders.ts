import { Resolver } from 'node:dns/promises';
import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, type Queryable } from '../../../db/pool';
import { listPage, notFound, type RowOf } from '../../kit';
import { toE164, type Channel } from './addresses';
import type { ChannelSender } from './models';

/**
 * Senders: an email domain (unverified → verified | pending | failed by a DNS check of SPF, DKIM and
 * DMARC), an SMS number or alphanumeric sender id (one-way: recipients cannot reply STOP), a WhatsApp
 * number. Numbers and ids are `active` once added.
 */

export interface SenderView {
  id: string;
  channel: Channel;
  kind: 'domain' | 'number' | 'alphanumeric';
  address: string;
  label: string | null;
  oneWay: boolean;
  status: 'unverified' | 'pending' | 'verified' | 'failed' | 'active';
  dkimSelector: string | null;
  lastCheck: DomainCheck | null;
  checkedAt: string | null;
  verifiedAt: string | null;
  createdAt: string;
  /** What the organisation must know before using it (one-way senders and marketing). */
  warnings: string[];
}

/** A sender as `SELECT *` reads it, typed by its model. */
type SenderRow = RowOf<ChannelSender>;

export const ONE_WAY_WARNING = 'One-way sender: recipients cannot reply STOP. Marketing through it must carry another way to opt out (a link or a number to text), or it is refused.';

function senderView(row: SenderRow): SenderView {
  return {
    id: row.id, channel: row.channel, kind: row.kind, address: row.address, label: row.label, oneWay: row.one_way, status: row.status,
    dkimSelector: row.dkim_selector, lastCheck: row.last_check, checkedAt: row.checked_at?.toISOString() ?? null,
    verifiedAt: row.verified_at?.toISOString() ?? null, createdAt: new Date(row.created_at).toISOString(),
    warnings: row.one_way ? [ONE_WAY_WARNING] : [],
  };
}

const DOMAIN = /^(?=.{4,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
// Alphanumeric sender ids: 1 to 11 characters of letters, digits and spaces, at least one letter (carriers refuse all-digit ids).
const ALPHANUMERIC = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;

export const DEFAULT_DKIM_SELECTOR = 'steward';

export async function createSender(
  db: Queryable, orgId: string, input: { channel: Channel; address: string; label?: string; dkimSelector?: string },
): Promise<SenderView> {
  const { kind, address } = parseSender(input.channel, input.address);
  const status = input.channel === 'email' ? 'unverified' : 'active';
  try {
    const row = await queryOne<SenderRow>(db, `
      INSERT INTO channel_senders (id, org_id, channel, kind, address, label, one_way, status, dkim_selector)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [randomUUID(), orgId, input.channel, kind, address, input.label ?? null, kind === 'alphanumeric', status,
      input.channel === 'email' ? (input.dkimSelector ?? DEFAULT_DKIM_SELECTOR) : null]);
    return senderView(row!);
  } catch (error) {
    if ((error as { code?: string }).code === '23505') {
      throw new StewardError('conflict', `${address} is already a ${input.channel} sender${kind === 'number' ? ' (a number belongs to one organisation)' : ''}`, {
        hint: 'channels_list_senders shows this organisation\'s senders.',
      });
    }
    throw error;
  }
}

function parseSender(channel: Channel, raw: string): { kind: SenderView['kind']; address: string } {
  const value = raw.trim();
  if (channel === 'email') {
    const domain = value.toLowerCase().replace(/\.$/, '');
    if (!DOMAIN.test(domain)) throw invalidSender('a domain name such as mail.example.org');
    return { kind: 'domain', address: domain };
  }
  const phone = value.startsWith('+') ? toE164(value) : undefined;
  if (phone) return { kind: 'number', address: phone };
  if (channel === 'sms' && ALPHANUMERIC.test(value)) return { kind: 'alphanumeric', address: value };
  throw invalidSender(channel === 'sms' ? 'an E.164 number (+447700900123) or an alphanumeric sender id of up to 11 letters and digits' : 'an E.164 number (+447700900123)');
}

function invalidSender(expected: string): StewardError {
  return new StewardError('validation_failed', `A sender address must be ${expected}`, { issues: [{ path: 'address', message: `expected ${expected}` }] });
}

export async function listSenders(
  db: Queryable, orgId: string, input: { channel?: Channel; limit: number; cursor?: string },
): Promise<{ senders: SenderView[]; nextCursor: string | null }> {
  const page = await listPage<SenderRow>(db, {
    table: 'channel_senders', orgId, limit: input.limit, cursor: input.cursor, includeDeleted: true,
    where: '$4::text IS NULL OR channel = $4', values: [input.channel ?? null],
  });
  return { senders: page.rows.map(senderView), nextCursor: page.nextCursor };
}

// ---------------------------------------------------------------- domain verification

/** How DNS is asked: `node:dns/promises` by default (env DNS_RESOLVER picks the server, "host" or "host:port"); tests pass their own. */
export interface TxtResolver {
  resolveTxt(name: string): Promise<string[][]>;
}

let configuredResolver: TxtResolver | null = null;

/** Replaces the resolver the verify tool uses (null restores the default); for tests and embedding. */
export function setSenderDnsResolver(resolver: TxtResolver | null): void {
  configuredResolver = resolver;
}

function defaultResolver(): TxtResolver {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  const server = process.env.DNS_RESOLVER?.trim();
  if (server) resolver.setServers([server]);
  return resolver;
}

export function senderDnsResolver(): TxtResolver {
  return configuredResolver ?? defaultResolver();
}

export type RecordResult = 'pass' | 'missing' | 'invalid' | 'error';

export interface DomainCheck {
  spf: { name: string; result: RecordResult; found: string | null };
  dkim: { name: string; result: RecordResult; found: string | null };
  dmarc: { name: string; result: RecordResult; found: string | null };
}

const NOT_FOUND_CODES = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

async function txtRecords(resolver: TxtResolver, name: string): Promise<string[] | 'missing' | 'error'> {
  try {
    // A TXT record longer than 255 bytes arrives in chunks; joined they are the record.
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch (error) {
    return NOT_FOUND_CODES.has((error as { code?: string }).code ?? '') ? 'missing' : 'error';
  }
}

async function checkRecord(
  resolver: TxtResolver, name: string, prefix: RegExp, valid: (record: string) => boolean,
): Promise<{ name: string; result: RecordResult; found: string | null }> {
  const records = await txtRecords(resolver, name);
  if (records === 'missing' || records === 'error') return { name, result: records, found: null };
  const matching = records.filter((record) => prefix.test(record.trim()));
  if (matching.length === 0) return { name, result: 'missing', found: null };
  // Two SPF (or DMARC) records are a permanent error for receivers (RFC 7208 4.5, RFC 7489 6.6.3).
  if (matching.length > 1) return { name, result: 'invalid', found: matching.join(' | ').slice(0, 500) };
  return { name, result: valid(matching[0]) ? 'pass' : 'invalid', found: matching[0].slice(0, 500) };
}

/** SPF, DKIM (at `<selector>._domainkey`) and DMARC records of a domain, each pass, missing, invalid or error (lookup failed). */
export async function checkDomainDns(resolver: TxtResolver, domain: string, selector: string): Promise<DomainCheck> {
  const [spf, dkim, dmarc] = await Promise.all([
    checkRecord(resolver, domain, /^v=spf1(\s|$)/i, (record) => /\s[~?-]?all\s*$|\sredirect=/i.test(` ${record}`) ),
    checkRecord(resolver, `${selector}._domainkey.${domain}`, /(^|;)\s*(v=DKIM1|p=)/i, (record) => /(^|;)\s*p=[A-Za-z0-9+/=]{16,}/.test(record)),
    checkRecord(resolver, `_dmarc.${domain}`, /^v=DMARC1(\s*;|$)/i, (record) => /;\s*p=(none|quarantine|reject)\b/i.test(record)),
  ]);
  return { spf, dkim, dmarc };
}

/** verified: all three pass; pending: some pass or a lookup failed (DNS may still be propagating: check again later); failed: none passes. */
export function statusOfCheck(check: DomainCheck): 'verified' | 'pending' | 'failed' {
  const results = [check.spf.result, check.dkim.result, check.dmarc.result];
  if (results.every((result) => result === 'pass')) return 'verified';
  if (results.some((result) => result === 'pass' || result === 'error')) return 'pending';
  return 'failed';
}

export async function requireEmailSender(db: Queryable, orgId: string, senderId: string): Promise<SenderRow> {
  const row = await queryOne<SenderRow>(db, 'SELECT * FROM channel_senders WHERE org_id = $1 AND id = $2', [orgId, senderId]);
  if (!row) throw notFound('Sender', senderId, 'List them with channels_list_senders.');
  if (row.channel !== 'email') {
    throw new StewardError('validation_failed', `Sender ${senderId} is a ${row.channel} number, not an email domain`, {
      issues: [{ path: 'senderId', message: 'not an email domain' }], hint: 'Only email domains are verified through DNS.',
    });
  }
  return row;
}

/** Stores a DNS check's outcome on the domain; a domain another organisation already verified cannot be verified again. */
export async function recordDomainCheck(db: Queryable, orgId: string, senderId: string, check: DomainCheck): Promise<SenderView> {
  await requireEmailSender(db, orgId, senderId);
  const status = statusOfCheck(check);
  const owner = status === 'verified'
    ? await queryOne<{ org_id: string | null }>(db, 'SELECT org_id FROM (SELECT channel_sender_org(\'email\', address) AS org_id FROM channel_senders WHERE org_id = $1 AND id = $2) s', [orgId, senderId])
    : undefined;
  if (owner?.org_id && owner.org_id !== orgId) {
    throw new StewardError('conflict', 'This domain is verified by another organisation', { hint: 'A domain sends for one organisation; ask its owner to remove it there first.' });
  }
  const row = await queryOne<SenderRow>(db, `
    UPDATE channel_senders SET status = $3, last_check = $4, checked_at = now(),
      verified_at = CASE WHEN $3 = 'verified' THEN COALESCE(verified_at, now()) ELSE NULL END
    WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, senderId, status, JSON.stringify(check)]);
  return senderView(row!);
}

// ---------------------------------------------------------------- one-way senders

export interface SendingSender {
  id: string;
  address: string;
  kind: SenderView['kind'];
  oneWay: boolean;
}

/**
 * The sender a message on this channel leaves from: for email the oldest verified domain, for SMS
 * the oldest number (two-way) before any alphanumeric id, for WhatsApp the oldest number; null when
 * the organisation has none (the provider's configured default then applies).
 */
export async function senderFor(db: Queryable, orgId: string, channel: Channel): Promise<SendingSender | null> {
  const row = await queryOne<{ id: string; address: string; kind: SenderView['kind']; one_way: boolean }>(db, `
    SELECT id, address, kind, one_way FROM channel_senders
    WHERE org_id = $1 AND channel = $2 AND status IN ('verified', 'active')
    ORDER BY one_way, created_at, id LIMIT 1`, [orgId, channel]);
  return row ? { id: row.id, address: row.address, kind: row.kind, oneWay: row.one_way } : null;
}

/**
 * A one-way sender (an alphanumeric id) cannot receive STOP, so a marketing or charitable-purpose
 * message through it must carry another way to opt out: a link. Service messages need none. Returns
 * the refusal, or null when the message may go.
 */
export function oneWayOptOutRefusal(sender: { oneWay: boolean } | null, purpose: 'marketing' | 'charitable_purpose' | 'service', body: string): { code: 'no_opt_out'; message: string; hint: string } | null {
  if (!sender?.oneWay || purpose === 'service') return null;
  if (/https:\/\/\S+/i.test(body)) return null;
  return {
    code: 'no_opt_out',
    message: 'This message goes from a one-way sender id that cannot receive STOP, and it has no other way to opt out',
    hint: 'Add an opt-out link (https://…) to the text, or send from a two-way number.',
  };
}
