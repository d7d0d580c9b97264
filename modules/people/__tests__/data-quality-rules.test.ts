import {
  badNameCase, checksOf, fixedEmail, fuzzyConfidence, hasDomainTypo, phoneE164, scoresOf, splitFullName, titleCase, twoEmails, type ContactRow,
} from '../data-quality/rules';

/** Data quality's rules as pure functions: what each check finds, what each fix writes, and the scores' arithmetic. */
describe('data quality rules', () => {
  const now = new Date('2026-11-28T12:00:00Z');
  const base: ContactRow = {
    id: '00000000-0000-4000-8000-000000000001', first_name: 'Ada', last_name: 'Lovelace', preferred_name: null, email: 'ada@example.org',
    phone: '+447700900123', date_of_birth: '1985-12-10', address_line1: '1 High Street', address_city: 'Leeds', address_county: 'West Yorkshire',
    address_postcode: 'LS6 2QE', address_country: null, status: 'subscribed', whatsapp_consent: false, updated_at: '2026-11-01T00:00:00Z',
  };

  it('a complete, well-formed contact fails no check', () => {
    expect(checksOf(base, 'GB', now)).toEqual([]);
  });

  it('finds each defect with its detail', () => {
    const keys = (row: Partial<ContactRow>, country = 'GB') => checksOf({ ...base, ...row }, country, now).map((hit) => hit.key);
    expect(keys({ last_name: null })).toEqual(['missing_name']);
    expect(keys({ email: null, phone: null })).toEqual(['missing_contact_route', 'not_contactable']);
    expect(keys({ email: 'Ada@Example.org' })).toEqual(['email_case']);
    expect(keys({ email: 'ada@gmial.com' })).toEqual(['email_domain_typo']);
    expect(keys({ email: 'a@x.org; b@y.org' })).toEqual(['invalid_email', 'not_contactable']);
    expect(keys({ phone: '07700 900123' })).toEqual(['phone_format']);
    expect(keys({ phone: 'ring the office' })).toEqual(['invalid_phone']);
    expect(keys({ address_postcode: 'ls62qe' })).toEqual(['postcode_format']);
    expect(keys({ address_postcode: 'not a postcode' })).toEqual(['invalid_postcode']);
    expect(keys({ address_city: null })).toEqual(['address_missing_town']);
    // An address outside the UK is not held to UK postcodes.
    expect(keys({ address_postcode: '75001', address_country: 'France' })).toEqual([]);
    expect(keys({ date_of_birth: '2030-01-01' })).toEqual(['implausible_date_of_birth']);
    expect(keys({ first_name: 'ADA' })).toEqual(['name_case']);
    expect(keys({ updated_at: '2023-01-01T00:00:00Z' })).toEqual(['stale_record']);
    expect(keys({ status: 'unsubscribed' })).toEqual(['not_contactable']);
    expect(keys({ status: 'unsubscribed', whatsapp_consent: true })).toEqual([]);
  });

  it('fixes formats as a person would', () => {
    expect(titleCase('MARY-JANE o\'neill')).toBe('Mary-Jane O\'Neill');
    expect(titleCase('mcdonald')).toBe('McDonald');
    expect(badNameCase('JO')).toBe(false);
    expect(badNameCase('jo')).toBe(true);
    expect(badNameCase('McDonald')).toBe(false);
    expect(phoneE164('07700 900123', 'GB')).toBe('+447700900123');
    expect(phoneE164('(415) 555-2671', 'US')).toBe('+14155552671');
    expect(phoneE164('12', 'GB')).toBeUndefined();
    expect(fixedEmail(' Jean.Smith@Hotmial.com ')).toBe('jean.smith@hotmail.com');
    expect(fixedEmail('not an email')).toBeUndefined();
    expect(hasDomainTypo('x@gmail.com')).toBe(false);
    expect(twoEmails('a@x.org; b@y.org')).toEqual(['a@x.org', 'b@y.org']);
    expect(twoEmails('a@x.org')).toBeUndefined();
    expect(splitFullName({ first_name: 'Anna Maria Lopez', last_name: null })).toEqual({ firstName: 'Anna Maria', lastName: 'Lopez' });
    expect(splitFullName({ first_name: null, last_name: 'Ken Brown' })).toEqual({ firstName: 'Ken', lastName: 'Brown' });
    expect(splitFullName({ first_name: 'Ken', last_name: 'Brown' })).toBeUndefined();
  });

  it('scores by the formulas it states, and the overall score is their average', () => {
    const { score, categories } = scoresOf({
      contacts: 10, missingFields: 4, presentValues: 30, invalidValues: 3, duplicateContacts: 2, inconsistentContacts: 5, staleContacts: 1, contactableContacts: 6,
    });
    expect(categories.completeness.score).toBe(90); // 100 × (1 − 4 ÷ 40)
    expect(categories.validity.score).toBe(90); // 100 × (1 − 3 ÷ 30)
    expect(categories.duplicates.score).toBe(80);
    expect(categories.consistency.score).toBe(50);
    expect(categories.freshness.score).toBe(90);
    expect(categories.contactability.score).toBe(60);
    expect(score).toBe(Math.round((90 + 90 + 80 + 50 + 90 + 60) / 6));
    expect(categories.completeness.formula).toBe('100 × (1 − missing fields ÷ (4 × contacts)) = 100 × (1 − 4 ÷ 40)');
    // No contacts: nothing is wrong.
    expect(scoresOf({ contacts: 0, missingFields: 0, presentValues: 0, invalidValues: 0, duplicateContacts: 0, inconsistentContacts: 0, staleContacts: 0, contactableContacts: 0 }).score).toBe(100);
  });

  it('a fuzzy pair\'s confidence: 70 × name similarity + 20 same birthday + 10 same postcode, at most 100', () => {
    expect(fuzzyConfidence(0.75, true, true)).toBe(83);
    expect(fuzzyConfidence(0.75, false, false)).toBe(53);
    expect(fuzzyConfidence(1, true, true)).toBe(100);
  });
});
