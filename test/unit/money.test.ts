import { currencyExponent, formatMinorUnits, minorUnitsAsDecimal } from '../../core/money';

describe('money shown from integer minor units', () => {
  it('places the decimal point by the currency\'s exponent, without float division', () => {
    expect(minorUnitsAsDecimal(123456, 'GBP')).toBe('1234.56');
    expect(minorUnitsAsDecimal(5, 'GBP')).toBe('0.05');
    expect(minorUnitsAsDecimal(-5, 'GBP')).toBe('-0.05');
    expect(minorUnitsAsDecimal(0, 'EUR')).toBe('0.00');
    expect(minorUnitsAsDecimal(500, 'JPY')).toBe('500');
    expect(minorUnitsAsDecimal(1234, 'KWD')).toBe('1.234');
    // Past 2^53 / 100 a float division loses the pence; the digits here are never divided.
    expect(minorUnitsAsDecimal(100_000_000_000_005, 'GBP')).toBe('1000000000000.05');
  });

  it('falls back to two digits for a code Intl does not know', () => {
    expect(currencyExponent('XYZ')).toBe(2);
    expect(currencyExponent('not a code')).toBe(2);
  });

  it('speaks an amount with its currency after it', () => {
    expect(formatMinorUnits(1200, 'GBP')).toBe('12.00 GBP');
  });
});
