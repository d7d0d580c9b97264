import {
  addYears, allocateGasds, checkClaimLine, checkDeclaration, claimGiftAid, coverageProblem, findCoveringDeclaration,
  gasdsAllowance, gasdsClaimDeadline, gasdsGiftProblem, giftAidClaimDeadline, giftAidOn, normalisePostcode, parseTaxYear,
  taxYearOf, taxYearStarting, type CandidateGift, type DeclarationFacts, type DonorDetails,
} from '../gift-aid/rules';

describe('UK tax year of a date', () => {
  it.each([
    ['2025-04-05', '2024-25', '2024-04-06', '2025-04-05'],
    ['2025-04-06', '2025-26', '2025-04-06', '2026-04-05'],
    ['2025-01-01', '2024-25', '2024-04-06', '2025-04-05'],
    ['2025-12-31', '2025-26', '2025-04-06', '2026-04-05'],
    ['2026-04-05', '2025-26', '2025-04-06', '2026-04-05'],
    ['2099-04-06', '2099-00', '2099-04-06', '2100-04-05'],
    ['2024-02-29', '2023-24', '2023-04-06', '2024-04-05'],
  ])('%s is in %s', (date, label, starts, ends) => {
    expect(taxYearOf(date)).toEqual({ label, startYear: Number(starts.slice(0, 4)), starts, ends });
  });

  it.each([['2025-26', 2025], ['2025/26', 2025], ['1999-00', 1999]])('parses %s', (label, startYear) => {
    expect(parseTaxYear(label)?.startYear).toBe(startYear);
  });

  it.each(['2025-27', '2025', '25-26', '2025-2026', ''])('refuses %j', (label) => {
    expect(parseTaxYear(label)).toBeNull();
  });

  it('refuses a date that is not on the calendar', () => {
    expect(() => taxYearOf('2025-02-29')).toThrow(RangeError);
    expect(() => taxYearOf('5/4/2025')).toThrow(RangeError);
  });

  it.each([['2024-02-29', -4, '2020-02-29'], ['2024-02-29', 1, '2025-02-28'], ['2025-04-05', 4, '2029-04-05']])('addYears(%s, %d) = %s', (date, years, expected) => {
    expect(addYears(date, years)).toBe(expected);
  });
});

describe('Gift Aid amounts: 25% of gross, rounded towards zero to the penny', () => {
  it.each([
    [1000, 250], [1, 0], [3, 0], [4, 1], [7, 1], [999, 249], [100_000_000_000, 25_000_000_000], [0, 0], [-1001, -250], [-4, -1],
  ])('giftAidOn(%d) = %d', (gross, aid) => {
    expect(giftAidOn(gross)).toBe(aid);
  });

  it('refuses a fraction of a penny', () => {
    expect(() => giftAidOn(10.5)).toThrow(RangeError);
  });

  it('has no rate before 2008-09 (past every claim window)', () => {
    expect(() => giftAidOn(1000, taxYearStarting(2007))).toThrow(RangeError);
  });

  it('a claim computes on the total, not the sum of rounded lines', () => {
    const lines = [{ amount: 3, date: '2025-05-01' }, { amount: 3, date: '2025-06-01' }, { amount: 3, date: '2025-07-01' }];
    expect(lines.reduce((sum, l) => sum + giftAidOn(l.amount), 0)).toBe(0);
    expect(claimGiftAid(lines)).toBe(2); // 9p gross → 2.25p → 2p
  });

  it('an adjustment line reduces the total it belongs to', () => {
    expect(claimGiftAid([{ amount: 10_000, date: '2025-05-01' }, { amount: -2_001, date: '2025-05-01' }])).toBe(1999); // 7,999 / 4
  });
});

describe('claim windows', () => {
  it.each([
    ['2021-04-05', '2025-04-05'], // tax year 2020-21 ends 5 April 2021; 4 years later
    ['2021-04-06', '2026-04-05'], // a day later is the next tax year
    ['2024-02-29', '2028-04-05'],
  ])('Gift Aid on a gift of %s may be claimed until %s', (gift, deadline) => {
    expect(giftAidClaimDeadline(gift)).toBe(deadline);
  });

  it.each([['2024-04-05', '2026-04-05'], ['2024-04-06', '2027-04-05']])('GASDS on %s may be claimed until %s', (collected, deadline) => {
    expect(gasdsClaimDeadline(collected)).toBe(deadline);
  });
});

const enduring = (overrides: Partial<DeclarationFacts> = {}): DeclarationFacts => ({
  id: 'd1', scope: 'past_and_future', madeOn: '2025-06-01', startOn: '2021-06-01', endOn: null, method: 'written',
  confirmationSentOn: null, cancelledOn: null, donationId: null, ...overrides,
});

describe('declaration coverage', () => {
  const asOf = '2025-09-01';
  it.each<[string, Partial<DeclarationFacts>, string, string | null]>([
    ['enduring covers its start date', {}, '2021-06-01', null],
    ['enduring does not cover the day before its start', {}, '2021-05-31', 'outside_declaration_dates'],
    ['enduring covers a later gift', {}, '2025-08-31', null],
    ['an end date is inclusive', { endOn: '2025-04-05' }, '2025-04-05', null],
    ['a gift after the end date', { endOn: '2025-04-05' }, '2025-04-06', 'outside_declaration_dates'],
    ['future_only starts when made', { scope: 'future_only', startOn: '2025-06-01' }, '2025-05-31', 'outside_declaration_dates'],
    ['future_only covers the day it was made', { scope: 'future_only', startOn: '2025-06-01' }, '2025-06-01', null],
    ['cancellation stops gifts from its date', { cancelledOn: '2025-07-01' }, '2025-07-01', 'declaration_cancelled'],
    ['cancellation leaves earlier gifts covered', { cancelledOn: '2025-07-01' }, '2025-06-30', null],
    ['oral without written confirmation', { method: 'oral' }, '2025-07-01', 'oral_unconfirmed'],
    ['oral confirmed after the claim date', { method: 'oral', confirmationSentOn: '2025-09-02' }, '2025-07-01', 'oral_unconfirmed'],
    ['oral confirmed on the claim date', { method: 'oral', confirmationSentOn: '2025-09-01' }, '2025-07-01', null],
    ['oral once confirmed covers gifts before the confirmation', { method: 'oral', confirmationSentOn: '2025-08-01' }, '2022-01-01', null],
    ['online counts like written', { method: 'online' }, '2025-07-01', null],
    ['single gift covers its gift', { scope: 'single_gift', donationId: 'g1' }, '2019-01-01', null],
  ])('%s', (_name, overrides, giftDate, expected) => {
    expect(coverageProblem(enduring(overrides), { id: 'g1', date: giftDate }, asOf)).toBe(expected);
  });

  it('a single gift declaration covers no other gift', () => {
    expect(coverageProblem(enduring({ scope: 'single_gift', donationId: 'g1' }), { id: 'g2', date: '2025-07-01' }, asOf)).toBe('no_declaration');
  });

  it('finds any covering declaration, else the most telling reason', () => {
    const gift = { id: 'g1', date: '2025-07-01' };
    expect(findCoveringDeclaration([], gift, asOf)).toEqual({ problem: 'no_declaration' });
    expect(findCoveringDeclaration([enduring({ id: 'a', method: 'oral' }), enduring({ id: 'b', startOn: '2025-08-01' })], gift, asOf))
      .toEqual({ problem: 'oral_unconfirmed' });
    expect(findCoveringDeclaration([enduring({ id: 'a', cancelledOn: '2025-01-01' }), enduring({ id: 'b' })], gift, asOf)).toEqual({ declarationId: 'b' });
  });
});

describe('recording a declaration', () => {
  const today = '2025-09-01';
  it.each<[string, Parameters<typeof checkDeclaration>[0], string, string[]]>([
    ['enduring defaults to four years back', { scope: 'past_and_future', method: 'written', madeOn: '2025-06-01' }, '2021-06-01', []],
    ['enduring from 29 February', { scope: 'past_and_future', method: 'written', madeOn: '2024-02-29' }, '2020-02-29', []],
    ['enduring cannot reach further back', { scope: 'past_and_future', method: 'written', madeOn: '2025-06-01', startOn: '2021-05-31' }, '2021-05-31', ['startOn']],
    ['future_only defaults to the day made', { scope: 'future_only', method: 'online', madeOn: '2025-06-01' }, '2025-06-01', []],
    ['future_only cannot be backdated', { scope: 'future_only', method: 'online', madeOn: '2025-06-01', startOn: '2025-05-01' }, '2025-05-01', ['startOn']],
    ['made in the future', { scope: 'future_only', method: 'written', madeOn: '2025-09-02' }, '2025-09-02', ['madeOn']],
    ['end before start', { scope: 'past_and_future', method: 'written', madeOn: '2025-06-01', endOn: '2020-01-01' }, '2021-06-01', ['endOn']],
    ['single gift needs a donation', { scope: 'single_gift', method: 'written', madeOn: '2025-06-01' }, '2025-06-01', ['donationId']],
    ['an enduring one names none', { scope: 'future_only', method: 'written', madeOn: '2025-06-01', donationId: 'x' }, '2025-06-01', ['donationId']],
    ['written has no confirmation', { scope: 'future_only', method: 'written', madeOn: '2025-06-01', confirmationSentOn: '2025-06-02' }, '2025-06-01', ['confirmationSentOn']],
    ['oral confirmed before it was made', { scope: 'future_only', method: 'oral', madeOn: '2025-06-01', confirmationSentOn: '2025-05-31' }, '2025-06-01', ['confirmationSentOn']],
    ['oral confirmed in the future', { scope: 'future_only', method: 'oral', madeOn: '2025-06-01', confirmationSentOn: '2025-09-02' }, '2025-06-01', ['confirmationSentOn']],
    ['oral confirmed', { scope: 'future_only', method: 'oral', madeOn: '2025-06-01', confirmationSentOn: '2025-06-03' }, '2025-06-01', []],
  ])('%s', (_name, input, startOn, paths) => {
    const checked = checkDeclaration(input, today);
    expect(checked.startOn).toBe(startOn);
    expect(checked.problems.map((p) => p.path)).toEqual(paths);
  });
});

describe('donor details', () => {
  it.each([
    ['sw1a 1aa', 'SW1A 1AA'], ['SW1A1AA', 'SW1A 1AA'], [' m1  1ae ', 'M1 1AE'], ['B33 8TH', 'B33 8TH'], ['CR2 6XH', 'CR2 6XH'],
    ['DN55 1PT', 'DN55 1PT'], ['EC1A 1BB', 'EC1A 1BB'], ['GIR 0AA', 'GIR 0AA'],
  ])('%j is the postcode %s', (input, output) => {
    expect(normalisePostcode(input)).toBe(output);
  });

  it.each(['', '12345', 'SW1A', 'SW1A 1A', 'Q1 1AA', '1AA 1AA', 'SW1A 1AAA', 'S W 1 A', 'SW1A 1CA'])('%j is not a postcode', (input) => {
    expect(normalisePostcode(input)).toBeNull();
  });
});

describe('claim lines', () => {
  const asOf = '2025-09-01';
  const gift = (overrides: Partial<CandidateGift> = {}): CandidateGift => ({
    id: 'g1', date: '2025-07-01', eligibleGross: 5000, eligibleBeforeRefunds: 5000, isGasds: false, anonymous: false, ...overrides,
  });
  const donor = (overrides: Partial<DonorDetails> = {}): DonorDetails => ({
    title: 'Mrs', firstName: 'Ada', lastName: 'Lovelace', houseNameOrNumber: '12', postcode: 'SW1A 1AA', ...overrides,
  });

  it('a good line names its declaration', () => {
    expect(checkClaimLine(gift(), donor(), [enduring()], asOf)).toEqual({ declarationId: 'd1', problems: [] });
    expect(checkClaimLine(gift(), donor({ title: null }), [enduring()], asOf).problems).toEqual([]);
  });

  it.each<[string, Partial<CandidateGift>, Partial<DonorDetails>, string[]]>([
    ['title too long', {}, { title: 'Reverend' }, ['title_invalid']],
    ['title with a digit', {}, { title: 'M1' }, ['title_invalid']],
    ['no first name', {}, { firstName: ' ' }, ['first_name_missing']],
    ['no last name', {}, { lastName: null }, ['last_name_missing']],
    ['a name with digits', {}, { lastName: 'L0velace' }, ['last_name_invalid']],
    ['a name too long', {}, { firstName: 'A'.repeat(36) }, ['first_name_invalid']],
    ['no house', {}, { houseNameOrNumber: null }, ['house_missing']],
    ['a house name too long', {}, { houseNameOrNumber: 'x'.repeat(41) }, ['house_invalid']],
    ['no postcode', {}, { postcode: null }, ['postcode_missing']],
    ['a bad postcode', {}, { postcode: 'ABC' }, ['postcode_invalid']],
    ['a GASDS entry', { isGasds: true }, {}, ['gasds_entry']],
    ['no eligible fund', { eligibleBeforeRefunds: 0, eligibleGross: 0 }, {}, ['fund_not_eligible']],
    ['refunded', { eligibleGross: 0 }, {}, ['refunded']],
    ['dated after the claim', { date: '2025-09-02' }, {}, ['future_gift']],
    ['past its claim window and its declaration', { date: '2021-04-05' }, {}, ['outside_claim_window', 'outside_declaration_dates']],
    ['anonymous', { anonymous: true }, {}, ['anonymous_gift']],
    ['several problems at once', { isGasds: true }, { postcode: null, houseNameOrNumber: '' }, ['gasds_entry', 'house_missing', 'postcode_missing']],
  ])('%s', (_name, giftChanges, donorChanges, problems) => {
    expect(checkClaimLine(gift(giftChanges), donor(donorChanges), [enduring()], asOf).problems).toEqual(problems);
  });

  it.each([
    ['2021-04-05', '2025-04-05', []], ['2021-04-05', '2025-04-06', ['outside_claim_window']], ['2021-04-06', '2026-04-05', []],
  ])('a gift of %s claimed on %s', (date, claimedOn, problems) => {
    const declaration = enduring({ madeOn: '2024-01-01', startOn: '2020-01-01' });
    expect(checkClaimLine(gift({ date }), donor(), [declaration], claimedOn).problems).toEqual(problems);
  });

  it('without a declaration', () => {
    expect(checkClaimLine(gift(), donor(), [], asOf).problems).toEqual(['no_declaration']);
  });
});

describe('Gift Aid Small Donations Scheme', () => {
  it.each<[number, string, boolean]>([
    [3000, 'cash', true], [3001, 'cash', false], [1, 'contactless', true], [0, 'cash', false], [2000, 'cheque', false], [2.5, 'cash', false],
  ])('a gift of %d by %s is a small donation: %s', (amount, method, ok) => {
    expect(gasdsGiftProblem(amount, method) === null).toBe(ok);
  });

  it.each([
    // Gift Aid gross in the year, small donations already claimed → how much more may be claimed
    [0, 0, 0],
    [50_000, 0, 500_000], // 10 × £500
    [80_000, 0, 800_000], // the £8,000 limit
    [1_000_000, 0, 800_000],
    [1_000_000, 750_000, 50_000],
    [50_000, 600_000, 0],
  ])('Gift Aid gross %d, already claimed %d → %d more', (giftAidGrossInYear, gasdsAlreadyClaimed, allowance) => {
    expect(gasdsAllowance({ giftAidGrossInYear, gasdsAlreadyClaimed })).toBe(allowance);
  });

  it('spreads an allowance oldest first', () => {
    const collections = [{ id: 'a', unclaimed: 3000 }, { id: 'b', unclaimed: 5000 }, { id: 'c', unclaimed: 100 }];
    expect(allocateGasds(collections, 6000)).toEqual([{ id: 'a', amount: 3000 }, { id: 'b', amount: 3000 }]);
    expect(allocateGasds(collections, 0)).toEqual([]);
    expect(allocateGasds(collections, 10_000)).toEqual([{ id: 'a', amount: 3000 }, { id: 'b', amount: 5000 }, { id: 'c', amount: 100 }]);
  });
});
