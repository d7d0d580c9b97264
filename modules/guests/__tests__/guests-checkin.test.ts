import { ageOn } from '../checkin/checkin';
import { SECURITY_CODE_ALPHABET, normaliseSecurityCode, randomSecurityCode } from '../checkin/codes';
import { labelsFor, mayReadMedical } from '../checkin/labels';
import type { ChildProfile } from '../checkin/setup';

describe('guests check-in: security codes', () => {
  it('draws from an alphabet without look-alike characters', () => {
    for (const lookAlike of '0OQ1IL2Z5S6G8BV') expect(SECURITY_CODE_ALPHABET).not.toContain(lookAlike);
    expect(new Set(SECURITY_CODE_ALPHABET).size).toBe(SECURITY_CODE_ALPHABET.length);
  });

  it('makes codes of the length asked, only from the alphabet, and not the same code every time', () => {
    const codes = Array.from({ length: 2000 }, () => randomSecurityCode(4));
    for (const code of codes) expect(code).toMatch(new RegExp(`^[${SECURITY_CODE_ALPHABET}]{4}$`));
    expect(new Set(codes).size).toBeGreaterThan(1900);
    expect(new Set(codes.join('')).size).toBe(SECURITY_CODE_ALPHABET.length);
    expect(randomSecurityCode(7)).toHaveLength(7);
  });

  it('compares what a person types ignoring case and spaces', () => {
    expect(normaliseSecurityCode(' k7 mx ')).toBe('K7MX');
  });
});

describe('guests check-in: ages on the service date', () => {
  it.each([
    ['2020-05-10', '2026-05-09', 5],
    ['2020-05-10', '2026-05-10', 6],
    ['2020-02-29', '2026-02-28', 5],
    ['2020-02-29', '2026-03-01', 6],
    ['2020-12-31', '2027-01-01', 6],
  ])('born %s is on %s aged %i', (born, on, age) => {
    expect(ageOn(born, on)).toBe(age);
  });
});

describe('guests check-in: labels', () => {
  const profiles = new Map<string, ChildProfile>([['c1', { contactId: 'c1', grade: null, allergies: 'Peanuts', medicalNotes: 'Inhaler', authorisedPickupIds: [] }]]);
  const children = [{ checkinId: 'k1', contactId: 'c1', name: 'Amy', locationName: 'Toddlers' }, { checkinId: 'k2', contactId: 'c2', name: 'Ben', locationName: 'Juniors' }];
  const options = { childLabel: true, parentTag: true, copies: 1, showAllergies: true };

  it('puts medical notes on the child\'s label only, never on the parent\'s tag', () => {
    const labels = labelsFor(children, 'K7MX', profiles, options, true);
    expect(labels.childLabels[0]).toMatchObject({ securityCode: 'K7MX', medicalAlert: true, allergies: 'Peanuts', medicalNotes: 'Inhaler', medicalWithheld: false });
    expect(labels.childLabels[1]).toMatchObject({ medicalAlert: false, allergies: null, medicalWithheld: false });
    expect(JSON.stringify(labels.parentTag)).not.toMatch(/Peanuts|Inhaler/);
    expect(labels.parentTag).toEqual({ securityCode: 'K7MX', children: [{ name: 'Amy', locationName: 'Toddlers' }, { name: 'Ben', locationName: 'Juniors' }] });
  });

  it('withholds the notes from a role not allowed to see them, but still shows there is something to ask', () => {
    const labels = labelsFor(children, 'K7MX', profiles, options, false);
    expect(labels.childLabels[0]).toMatchObject({ medicalAlert: true, allergies: null, medicalNotes: null, medicalWithheld: true });
    expect(mayReadMedical('volunteer', { securityCodeLength: 4, sweepGraceMinutes: 30, medicalVisibleRoles: ['owner', 'admin', 'staff'] })).toBe(false);
    expect(mayReadMedical('staff', { securityCodeLength: 4, sweepGraceMinutes: 30, medicalVisibleRoles: ['owner', 'admin', 'staff'] })).toBe(true);
  });

  it('prints nothing without children, and honours the label options', () => {
    expect(labelsFor([], null, profiles, options, true)).toEqual({ childLabels: [], parentTag: null, copies: 1 });
    const noTag = labelsFor(children, 'K7MX', profiles, { ...options, parentTag: false, copies: 2 }, true);
    expect(noTag.parentTag).toBeNull();
    expect(noTag.copies).toBe(2);
  });
});
