import { exactDecimal, formatMinorUnits } from '../money';
import { statementEmailHtml, statementEmailText, statementSubject } from '../gift-aid/statement-delivery';
import type { StatementContent } from '../gift-aid/statements';

const content = (overrides: Partial<StatementContent> = {}): StatementContent => ({
  organisation: 'Grace <Church>',
  giver: { contactId: '00000000-0000-4000-8000-000000000001', name: 'Ada "Al" Lovelace', houseNameOrNumber: '12', postcode: 'SW1A 1AA' },
  periodStart: '2025-04-06', periodEnd: '2026-04-05', taxYear: '2025-26', currency: 'GBP',
  lines: [
    { donationId: 'd1', date: '2025-05-01', amount: 12_345, method: 'card', funds: ['General', 'Roof'], giftAidStatus: 'claimed' },
    { donationId: 'd2', date: '2025-06-01', amount: -500, method: 'cash', funds: [], giftAidStatus: 'not_claimable' },
  ],
  total: 11_845, giftAidClaimed: 0,
  ...overrides,
});

describe('statement emails', () => {
  it('formats integer minor units in the currency, by its own number of decimals', () => {
    expect(formatMinorUnits(12_345, 'GBP')).toBe('£123.45');
    expect(formatMinorUnits(-5, 'GBP')).toBe('-£0.05');
    expect(formatMinorUnits(1_500, 'JPY')).toBe('JP¥1,500');
    expect(formatMinorUnits(1_234, 'KWD')).toMatch(/^KWD\s1\.234$/);
    expect(formatMinorUnits(100_000_000_000, 'EUR')).toBe('€1,000,000,000.00');
    // The amount reaches Intl as an exact decimal string, never as a float.
    expect([exactDecimal(5, 2), exactDecimal(-5, 2), exactDecimal(1_500, 0), exactDecimal(1_234, 3), exactDecimal(99_999_999_999, 2)])
      .toEqual(['0.05', '-0.05', '1500', '1.234', '999999999.99']);
  });

  it('text: organisation, period, each gift with date, fund and amount, total; the Gift Aid note only when claimed', () => {
    const text = statementEmailText(content());
    expect(text).toContain('Grace <Church>');
    expect(text).toContain('tax year 2025-26 (2025-04-06 to 2026-04-05)');
    expect(text).toContain('2025-05-01  General, Roof  £123.45');
    expect(text).toContain('2025-06-01  General  -£5.00');
    expect(text).toContain('Total: £118.45');
    expect(text).not.toContain('Gift Aid');
    expect(statementEmailText(content({ giftAidClaimed: 2_500 }))).toContain('Gift Aid claimed on these gifts: £25.00');
    expect(statementSubject(content({ taxYear: null }))).toBe('Your giving statement from Grace <Church>: 2025-04-06 to 2026-04-05');
  });

  it('HTML: the same figures, every name escaped', () => {
    const html = statementEmailHtml(content({ giftAidClaimed: 2_500 }));
    expect(html).toContain('<strong>Grace &lt;Church&gt;</strong>');
    expect(html).toContain('Dear Ada &quot;Al&quot; Lovelace');
    expect(html).toContain('<td>General, Roof</td><td style="text-align:right">£123.45</td>');
    expect(html).toContain('<th align="right">£118.45</th>');
    expect(html).toContain('Gift Aid claimed on these gifts: £25.00');
    expect(html).not.toContain('<Church>');
  });
});
