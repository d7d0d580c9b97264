import { StewardError } from '../../../core/errors';
import { validateLayout } from '../dashboard/layouts';
import { cardSampleToken, verifyCardSampleToken } from '../dashboard/qr';
import { addDays } from '../dashboard/stats';

/** The dashboard part's pure rules: layout validation, the visitor card's sample token, day arithmetic. */
describe('people dashboard rules', () => {
  const orgId = '11111111-1111-4111-8111-111111111111';

  beforeAll(() => {
    process.env.PEOPLE_QR_SIGNING_KEY = 'a test signing key of at least thirty-two characters';
  });

  it('accepts a board\'s own widgets once each and names every unknown or repeated one', () => {
    expect(() => validateLayout('main', [{ widget: 'crm_chart', size: 'small', hidden: false }, { widget: 'birthdays', size: 'large', hidden: true }])).not.toThrow();
    expect(() => validateLayout('crm', [])).not.toThrow();
    let error: unknown;
    try {
      validateLayout('main', [{ widget: 'tags', size: 'small', hidden: false }, { widget: 'crm_chart', size: 'small', hidden: false }, { widget: 'crm_chart', size: 'large', hidden: false }]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StewardError);
    expect((error as StewardError).issues).toEqual([
      { path: 'widgets.0.widget', message: '"tags" is not a widget of the main dashboard' },
      { path: 'widgets.2.widget', message: '"crm_chart" appears more than once' },
    ]);
  });

  it('signs a visitor card sample token for one organisation and an hour', () => {
    const now = Date.parse('2026-11-28T10:00:00Z');
    const sample = cardSampleToken(orgId, now);
    expect(sample.expiresAt).toBe('2026-11-28T11:00:00.000Z');
    expect(verifyCardSampleToken(orgId, sample.token, now)).toBe(true);
    expect(verifyCardSampleToken(orgId, sample.token, now + 3_600_000)).toBe(false);
    expect(verifyCardSampleToken('22222222-2222-4222-8222-222222222222', sample.token, now)).toBe(false);
    const parts = sample.token.split('.');
    parts[2] = String(Number(parts[2]) + 3600);
    expect(verifyCardSampleToken(orgId, parts.join('.'), now)).toBe(false);
  });

  it('counts days across month and year ends', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });
});
