import { checkFields, csvCell, formClosedReason, readAnswers, type FormField } from '../forms';
import { linksOf, readTrackingToken, renderEmail, trackingToken } from '../campaigns';
import { checkFormToken, formToken, renderForm } from '../public';

const fields: FormField[] = [
  { key: 'name', label: 'Name', type: 'text', required: true, contactField: 'firstName' },
  { key: 'email', label: 'Email', type: 'email', required: true, contactField: 'email' },
  { key: 'colour', label: 'Colour', type: 'choice', required: false, options: ['Red', 'Blue'] },
  { key: 'ok', label: 'I agree', type: 'consent', required: true },
];
const org = '11111111-1111-4111-8111-111111111111';
const form = '22222222-2222-4222-8222-222222222222';
const contact = '33333333-3333-4333-8333-333333333333';

describe('grow pure functions', () => {
  it('reads answers: ok, every bad one named, unknown names ignored', () => {
    expect(readAnswers(fields, new URLSearchParams({ name: ' Ann ', email: 'ANN@x.org', colour: 'Red', ok: 'yes', extra: 'x' }))).toEqual({ answers: { name: 'Ann', email: 'ann@x.org', colour: 'Red', ok: true } });
    const bad = readAnswers(fields, new URLSearchParams({ email: 'nope', colour: 'Green', ok: 'on' }));
    expect('errors' in bad && bad.errors.map((e) => e.key)).toEqual(['name', 'email', 'colour', 'ok']);
    const twice = new URLSearchParams([['name', 'a'], ['name', 'b'], ['email', 'a@b.cd'], ['ok', 'yes']]);
    expect('errors' in readAnswers(fields, twice)).toBe(true);
  });

  it('checks a form\'s fields together', () => {
    expect(() => checkFields(fields, ['contact'])).not.toThrow();
    expect(() => checkFields([...fields, { key: 'child', label: 'Child', type: 'text', required: false, aboutChild: true }], ['contact'])).toThrow(/guardian_consent/);
    expect(() => checkFields([fields[0]!, fields[0]!], ['contact'])).toThrow(/Two fields/);
    expect(() => checkFields([fields[1]!], ['guest_card'])).toThrow(/guest card/);
  });

  it('knows when a form takes answers', () => {
    const now = new Date('2026-06-01T12:00:00Z');
    expect(formClosedReason({ status: 'published', opens_at: null, closes_at: null }, now)).toBeNull();
    expect(formClosedReason({ status: 'published', opens_at: new Date('2026-07-01T00:00:00Z'), closes_at: null }, now)).toMatch(/not open yet/);
    expect(formClosedReason({ status: 'closed', opens_at: null, closes_at: null }, now)).toMatch(/not taking/);
  });

  it('neutralises CSV formulas and quotes', () => {
    expect(csvCell('=SUM(A1)')).toBe('"\'=SUM(A1)"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell(true)).toBe('"yes"');
  });

  it('signs form tokens for one form and a day', () => {
    const now = Date.now();
    const token = formToken(org, form, now);
    expect(checkFormToken(org, form, token, now)).toBe(true);
    expect(checkFormToken(org, contact, token, now)).toBe(false);
    expect(checkFormToken(org, form, token, now + 25 * 3600_000)).toBe(false);
    expect(checkFormToken(org, form, `${now}.${'A'.repeat(43)}`, now)).toBe(false);
  });

  it('renders a form with every value escaped and boxes unticked', () => {
    const html = renderForm(org, { id: form, name: '<b>Form</b>', fields: [{ ...fields[0]!, label: '<i>Name</i>' }, fields[3]!] }, { values: { name: '"><script>x</script>' }, now: Date.now() });
    expect(html).not.toMatch(/<script>|<i>|<b>/);
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(html).not.toContain('checked');
  });

  it('tracks links through signed tokens that cannot be altered', () => {
    expect(linksOf('Go to https://a.org/x, or https://a.org/x. Also https://b.org')).toEqual(['https://a.org/x', 'https://b.org']);
    const token = trackingToken(org, form, contact, 1);
    expect(readTrackingToken(token)).toEqual({ orgId: org, campaignId: form, contactId: contact, link: 1 });
    expect(readTrackingToken(token.replace('.1.', '.2.'))).toBeNull();
    expect(readTrackingToken(`${org}.${form}.${contact}.1.https://evil.example`)).toBeNull();
    const email = renderEmail(org, form, contact, { subject: 'S', body: 'See <https://a.org/x>', links: ['https://a.org/x'] });
    expect(email.body).not.toContain('https://a.org/x');
    expect(email.html).toContain('&lt;');
    expect(email.html).toContain('/grow/o/');
  });
});
