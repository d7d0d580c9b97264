import { StewardError } from '../../../core/errors';
import { minorDigits, parseMajorAmount } from '../import';
import {
  MAX_MINOR_UNITS, currencyCode, currencyForCountry, minorUnits, nonNegativeMinorUnits, positiveMinorUnits, requireCurrency, signedMinorUnits,
} from '../money';
import { policyOf, taskOf, type AnyTool } from '../../tool';
import { findTool } from '../../catalogue';

/** Money is whole minor units, bounded, never a float: every way in is checked here, row by row. */
describe('giving money', () => {
  const amounts: Array<[string, unknown, { positive: boolean; nonNegative: boolean; signed: boolean }]> = [
    ['one penny', 1, { positive: true, nonNegative: true, signed: true }],
    ['£12.50 as 1250', 1250, { positive: true, nonNegative: true, signed: true }],
    ['the maximum', MAX_MINOR_UNITS, { positive: true, nonNegative: true, signed: true }],
    ['one past the maximum', MAX_MINOR_UNITS + 1, { positive: false, nonNegative: false, signed: false }],
    ['10^15', 1e15, { positive: false, nonNegative: false, signed: false }],
    ['zero', 0, { positive: false, nonNegative: true, signed: false }],
    ['negative', -100, { positive: false, nonNegative: false, signed: true }],
    ['the negative maximum', -MAX_MINOR_UNITS, { positive: false, nonNegative: false, signed: true }],
    ['below the negative maximum', -MAX_MINOR_UNITS - 1, { positive: false, nonNegative: false, signed: false }],
    ['fractional', 12.5, { positive: false, nonNegative: false, signed: false }],
    ['a float near a whole number', 1250.0000001, { positive: false, nonNegative: false, signed: false }],
    ['a numeric string', '1250', { positive: false, nonNegative: false, signed: false }],
    ['a decimal string', '12.50', { positive: false, nonNegative: false, signed: false }],
    ['NaN', Number.NaN, { positive: false, nonNegative: false, signed: false }],
    ['Infinity', Number.POSITIVE_INFINITY, { positive: false, nonNegative: false, signed: false }],
    ['null', null, { positive: false, nonNegative: false, signed: false }],
  ];

  it.each(amounts)('schemas on %s', (_label, value, expected) => {
    expect({
      positive: positiveMinorUnits.safeParse(value).success,
      nonNegative: nonNegativeMinorUnits.safeParse(value).success,
      signed: signedMinorUnits.safeParse(value).success,
    }).toEqual(expected);
  });

  it('says why a fractional amount is refused, in terms of minor units', () => {
    const result = positiveMinorUnits.safeParse(12.5);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0].message).toContain('12.50 is 1250');
  });

  const fromDatabase: Array<[string, unknown, number | 'throws']> = [
    ['an int8 the pool parsed', 1250, 1250],
    ['a SUM() as numeric text', '552000', 552_000],
    ['a negative SUM()', '-30000', -30_000],
    ['NULL (no rows)', null, 0],
    ['a fractional numeric', '12.50', 'throws'],
    ['beyond a safe integer', '9007199254740993', 'throws'],
    ['a float', 0.1 + 0.2, 'throws'],
    ['text', 'abc', 'throws'],
    ['an empty string', '', 'throws'],
  ];

  it.each(fromDatabase)('minorUnits of %s', (_label, value, expected) => {
    if (expected === 'throws') expect(() => minorUnits(value)).toThrow(StewardError);
    else expect(minorUnits(value)).toBe(expected);
  });

  const majorAmounts: Array<[string, string, number | 'error']> = [
    ['12.50', 'GBP', 1250],
    ['£12.50', 'GBP', 1250],
    ['1,250.00', 'GBP', 125_000],
    ['12', 'GBP', 1200],
    ['12.5', 'GBP', 1250],
    ['0.07', 'GBP', 7],
    ['12.505', 'GBP', 'error'],
    ['-12.50', 'GBP', 'error'],
    ['12,50', 'GBP', 'error'],
    ['abc', 'GBP', 'error'],
    ['', 'GBP', 'error'],
    ['1000000000.00', 'GBP', 100_000_000_000],
    ['1000000000.01', 'GBP', 'error'],
    ['1500', 'JPY', 1500],
    ['1500.5', 'JPY', 'error'],
  ];

  it.each(majorAmounts)('the import reads "%s" %s exactly', (text, currency, expected) => {
    const parsed = parseMajorAmount(text, currency);
    if (expected === 'error') expect(typeof parsed).toBe('string');
    else expect(parsed).toBe(expected);
  });

  it('knows the minor digits of a zero-decimal currency', () => {
    expect([minorDigits('GBP'), minorDigits('JPY')]).toEqual([2, 0]);
  });

  const currencies: Array<[unknown, boolean]> = [['GBP', true], ['gbp', true], ['GB', false], ['GBPX', false], ['12A', false], [826, false]];
  it.each(currencies)('currency code %p valid: %p', (value, ok) => {
    expect(currencyCode.safeParse(value).success).toBe(ok);
  });

  it("derives the organisation's currency from its country, and refuses another", () => {
    expect([currencyForCountry('GB'), currencyForCountry('gb'), currencyForCountry('US'), currencyForCountry('IE'), currencyForCountry('ZZ')])
      .toEqual(['GBP', 'GBP', 'USD', 'EUR', null]);
    expect(() => requireCurrency(undefined, 'GBP')).not.toThrow();
    expect(() => requireCurrency('gbp', 'GBP')).not.toThrow();
    expect(() => requireCurrency('USD', 'GBP', 'donations.2.currency')).toThrow(expect.objectContaining({
      code: 'validation_failed', issues: [{ path: 'donations.2.currency', message: 'must be GBP' }],
    }));
  });
});

describe('metering per call and conditional gates (tool values)', () => {
  it('a bulk or import call is metered by what it records, fixed in its plan; a dry run not at all', () => {
    const add = findTool('giving_add_batch_donations')!;
    const gift = { amount: 100, method: 'cash', receivedOn: '2026-01-04' };
    expect(policyOf(add).meter).toEqual({ feature: 'donations', units: 1 });
    expect(policyOf(add, { batchId: '00000000-0000-4000-8000-000000000000', donations: [gift, gift, gift] }).meter).toEqual({ feature: 'donations', units: 3 });
    const importTool = findTool('giving_import_donations')!;
    const csv = 'date,amount\n2026-01-04,1.00\n2026-01-05,2.00\n';
    expect(policyOf(importTool, { csv, source: 'bank', mode: 'commit' }).meter).toEqual({ feature: 'donations', units: 2 });
    expect(policyOf(importTool, { csv, source: 'bank', mode: 'dry_run' }).meter).toBeNull();
    expect(policyOf(findTool('giving_record_donation')!, { ...gift }).meter).toEqual({ feature: 'donations', units: 1 });
  });

  it('refuses a meter count that is not a whole number of at least zero', () => {
    const tool = { ...findTool('giving_add_batch_donations')!, meterCount: () => -1 } as AnyTool;
    expect(() => policyOf(tool, {})).toThrow(/meterCount/);
  });

  it('a conditionally gated tool runs as an MCP task only if it says how; an unconditional one always can', () => {
    const commit = findTool('giving_commit_batch')!;
    expect(commit.approval).toMatchObject({ kind: 'gated', when: { reason: expect.any(String) } });
    expect(taskOf(commit)).toBeUndefined();
    expect(taskOf({ ...commit, approval: { kind: 'gated' } } as AnyTool)).toEqual({});
  });
});
