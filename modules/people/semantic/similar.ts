import { queryRows, type Queryable } from '../../../db/pool';
import { displayNameOf, requireContact } from '../contacts';

/**
 * Likely duplicates and namesakes of one contact. Candidates share something checkable — an email, a
 * phone number's last ten digits, a date of birth, a surname or its first three letters with the same
 * first initial — and each is scored by hand-checkable evidence: name similarity (trigram overlap of
 * the full names, 0–1), same email, same phone, same date of birth, same postcode. Conflicting
 * identifiers (two different dates of birth, two different emails) make a similar name a namesake, not
 * a duplicate. No notes are read, so restricted notes never feed it.
 *
 * confidence = min(1, 0.45·email + 0.35·phone + 0.25·dateOfBirth + 0.1·postcode + 0.4·nameSimilarity) − 0.3·conflicts, floored at 0.
 */
export const SIMILAR_KINDS = ['likely_duplicate', 'namesake'] as const;

function trigrams(text: string): Set<string> {
  const padded = `  ${text.toLowerCase().replace(/[^a-z0-9 ]/g, '').replace(/\s+/g, ' ').trim()} `;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i += 1) out.add(padded.slice(i, i + 3));
  return out;
}

/** Trigram similarity (shared / union), as pg_trgm defines it. */
export function nameSimilarity(a: string, b: string): number {
  const x = trigrams(a);
  const y = trigrams(b);
  if (x.size === 0 || y.size === 0) return 0;
  let shared = 0;
  for (const gram of x) if (y.has(gram)) shared += 1;
  return shared / (x.size + y.size - shared);
}

interface Row {
  id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; phone: string | null;
  date_of_birth: string | null; address_postcode: string | null; family_id: string | null;
}

const digits = (phone: string | null) => (phone ? phone.replace(/\D/g, '').slice(-10) : '');
const fullName = (row: Pick<Row, 'first_name' | 'last_name'>) => `${row.first_name ?? ''} ${row.last_name ?? ''}`.trim();
const postcode = (value: string | null) => (value ? value.replace(/\s/g, '').toUpperCase() : '');

export async function listSimilarContacts(db: Queryable, orgId: string, contactId: string, limit: number) {
  const contact = await requireContact(db, orgId, contactId);
  const me = (await queryRows<Row>(db, `SELECT id, first_name, last_name, preferred_name, email, phone, date_of_birth::text, address_postcode, family_id
    FROM contacts WHERE org_id = $1 AND id = $2`, [orgId, contactId]))[0]!;
  const rows = await queryRows<Row>(db, `
    SELECT id, first_name, last_name, preferred_name, email, phone, date_of_birth::text, address_postcode, family_id FROM contacts c
    WHERE c.org_id = $1 AND c.deleted_at IS NULL AND c.id <> $2 AND (
      ($3::text <> '' AND lower(c.email) = $3)
      OR ($4::text <> '' AND right(regexp_replace(coalesce(c.phone, ''), '\\D', '', 'g'), 10) = $4)
      OR ($5::date IS NOT NULL AND c.date_of_birth = $5::date)
      OR ($6::text <> '' AND lower(c.last_name) = $6)
      OR ($6::text <> '' AND left(lower(c.last_name), 3) = left($6, 3) AND left(lower(c.first_name), 1) = left($7, 1)))
    LIMIT 500`, [orgId, contactId, (me.email ?? '').toLowerCase(), digits(me.phone).length >= 6 ? digits(me.phone) : '', me.date_of_birth,
    (me.last_name ?? '').toLowerCase(), (me.first_name ?? '').toLowerCase()]);
  const results = rows.map((row) => {
    const reasons: string[] = [];
    const similarity = Math.round(nameSimilarity(fullName(me), fullName(row)) * 100) / 100;
    const sameEmail = Boolean(me.email && row.email && me.email.toLowerCase() === row.email.toLowerCase());
    const samePhone = Boolean(digits(me.phone).length >= 6 && digits(me.phone) === digits(row.phone));
    const sameBirth = Boolean(me.date_of_birth && me.date_of_birth === row.date_of_birth);
    const samePostcode = Boolean(postcode(me.address_postcode) && postcode(me.address_postcode) === postcode(row.address_postcode));
    const conflicts: string[] = [];
    if (me.date_of_birth && row.date_of_birth && !sameBirth) conflicts.push('different dates of birth');
    if (me.email && row.email && !sameEmail) conflicts.push('different emails');
    if (sameEmail) reasons.push('same email');
    if (samePhone) reasons.push('same phone number');
    if (sameBirth) reasons.push('same date of birth');
    if (samePostcode) reasons.push('same postcode');
    reasons.push(`name similarity ${similarity}`);
    if (me.family_id && row.family_id === me.family_id) reasons.push('same household');
    const score = Math.min(1, 0.45 * Number(sameEmail) + 0.35 * Number(samePhone) + 0.25 * Number(sameBirth) + 0.1 * Number(samePostcode) + 0.4 * similarity) - 0.3 * conflicts.length;
    const confidence = Math.max(0, Math.round(score * 100) / 100);
    const strongId = sameEmail || samePhone;
    const kind = strongId || (similarity >= 0.6 && conflicts.length === 0 && (sameBirth || samePostcode)) ? 'likely_duplicate' as const
      : similarity >= 0.6 ? 'namesake' as const : null;
    return { contactId: row.id, displayName: displayNameOf(row), email: row.email, kind, confidence, nameSimilarity: similarity, reasons, conflicts };
  }).filter((entry): entry is typeof entry & { kind: (typeof SIMILAR_KINDS)[number] } => entry.kind !== null)
    .sort((a, b) => b.confidence - a.confidence || b.nameSimilarity - a.nameSimilarity);
  return { contact: { contactId: contact.id, displayName: contact.displayName }, similar: results.slice(0, limit) };
}
