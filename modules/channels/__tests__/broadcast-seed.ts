import { randomUUID } from 'node:crypto';
import type { Pool } from '../../../db/pool';

/** Phone numbers of the test range (+44 7700 900xxx is reserved for drama and tests). */
export const testPhone = (n: number) => `+447700${String(900000 + n).padStart(6, '0')}`;

/**
 * Seeds `count` contacts with phones under one tag, in one statement each (a thousand contacts
 * through the tools would take minutes); returns the tag id and the contact ids in sending order
 * (broadcasts send in contact-id order).
 */
export async function seedTaggedContacts(pool: Pool, orgId: string, input: { tag: string; count: number; firstNumber?: number }) {
  const tagId = randomUUID();
  await pool.query('INSERT INTO tags (id, org_id, name) VALUES ($1, $2, $3)', [tagId, orgId, input.tag]);
  const ids = Array.from({ length: input.count }, () => randomUUID());
  const phones = ids.map((_, i) => testPhone((input.firstNumber ?? 0) + i));
  await pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, phone)
    SELECT id, $1, 'Member', 'No ' || ord, phone FROM unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS t(id, phone, ord)`, [orgId, ids, phones]);
  await pool.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) SELECT $1, id, $3 FROM unnest($2::uuid[]) AS t(id)', [orgId, ids, tagId]);
  const sorted = ids.map((id, i) => ({ id, phone: phones[i] })).sort((a, b) => (a.id < b.id ? -1 : 1));
  return { tagId, contacts: sorted };
}

/**
 * Seeds `count` contacts with email addresses under one tag, each with consent for `purpose` by
 * email (evidence as channels_record_consent keeps it); returns the tag id. An email campaign's or
 * broadcast's audience that every check lets through.
 */
export async function seedConsentedEmailAudience(pool: Pool, orgId: string, input: { tag: string; count: number; purpose: 'marketing' | 'charitable_purpose' }) {
  const tagId = randomUUID();
  await pool.query('INSERT INTO tags (id, org_id, name) VALUES ($1, $2, $3)', [tagId, orgId, input.tag]);
  const ids = Array.from({ length: input.count }, () => randomUUID());
  await pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email)
    SELECT id, $1, 'Reader', 'No ' || ord, 'reader-' || id || '@example.org' FROM unnest($2::uuid[]) WITH ORDINALITY AS t(id, ord)`, [orgId, ids]);
  await pool.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) SELECT $1, id, $3 FROM unnest($2::uuid[]) AS t(id)', [orgId, ids, tagId]);
  await pool.query(`INSERT INTO channel_consents (id, org_id, contact_id, channel, purpose, basis, source, wording, captured_at, recorded_by)
    SELECT gen_random_uuid(), $1, id, 'email', $3, 'consent', 'website form', 'Send me the church''s news', now(), 'test' FROM unnest($2::uuid[]) AS t(id)`,
  [orgId, ids, input.purpose]);
  return { tagId };
}
