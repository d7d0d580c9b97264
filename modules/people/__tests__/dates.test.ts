import { StewardError } from '../../../core/errors';
import { isIsoDate, parseOrgDate } from '../dates';

function failure(value: string, format: 'DMY' | 'MDY' | 'YMD', field = 'dateOfBirth'): StewardError {
  try {
    parseOrgDate(value, format, field);
  } catch (error) {
    if (error instanceof StewardError) return error;
    throw error;
  }
  throw new Error(`expected "${value}" (${format}) to be refused`);
}

describe('parseOrgDate', () => {
  it('reads day before month for DMY (UK) organisations', () => {
    expect(parseOrgDate('09/12/1986', 'DMY', 'dateOfBirth')).toBe('1986-12-09');
    expect(parseOrgDate('1/2/2000', 'DMY', 'dateOfBirth')).toBe('2000-02-01');
    expect(parseOrgDate('25.12.2020', 'DMY', 'dateOfBirth')).toBe('2020-12-25');
    expect(parseOrgDate('25-12-2020', 'DMY', 'dateOfBirth')).toBe('2020-12-25');
  });

  it('reads month first for MDY (US) organisations', () => {
    expect(parseOrgDate('09/12/1986', 'MDY', 'dateOfBirth')).toBe('1986-09-12');
    expect(parseOrgDate('12/25/2020', 'MDY', 'dateOfBirth')).toBe('2020-12-25');
  });

  it('the same text means different days in DMY and MDY', () => {
    expect(parseOrgDate('03/04/2021', 'DMY', 'x')).not.toBe(parseOrgDate('03/04/2021', 'MDY', 'x'));
  });

  it('always accepts ISO, whatever the format, and zero-pads', () => {
    for (const format of ['DMY', 'MDY', 'YMD'] as const) {
      expect(parseOrgDate('1986-12-09', format, 'dateOfBirth')).toBe('1986-12-09');
      expect(parseOrgDate('2000-2-1', format, 'dateOfBirth')).toBe('2000-02-01');
      expect(parseOrgDate('  2000-02-01  ', format, 'dateOfBirth')).toBe('2000-02-01');
    }
  });

  it('refuses impossible calendar dates', () => {
    expect(failure('31/02/2000', 'DMY').code).toBe('validation_failed');
    expect(failure('02/31/2000', 'MDY').code).toBe('validation_failed');
    expect(failure('2000-02-30', 'DMY').code).toBe('validation_failed');
    expect(failure('2001-13-01', 'MDY').code).toBe('validation_failed');
    expect(failure('00/01/2000', 'DMY').code).toBe('validation_failed');
    expect(failure('31/04/2021', 'DMY').code).toBe('validation_failed');
  });

  it('knows leap years', () => {
    expect(parseOrgDate('29/02/2024', 'DMY', 'x')).toBe('2024-02-29');
    expect(parseOrgDate('2000-02-29', 'DMY', 'x')).toBe('2000-02-29');
    expect(failure('29/02/2023', 'DMY').code).toBe('validation_failed');
    expect(failure('1900-02-29', 'DMY').code).toBe('validation_failed');
  });

  it('refuses a UK-ordered date that is impossible month-first', () => {
    // 25/12 is Christmas in the UK but month 25 in the US.
    expect(parseOrgDate('25/12/2020', 'DMY', 'x')).toBe('2020-12-25');
    expect(failure('25/12/2020', 'MDY').code).toBe('validation_failed');
  });

  it('refuses non-dates and ambiguous short forms', () => {
    for (const value of ['', 'tomorrow', '12/2020', '1/2/20', '2020/01/02', '01/02/2000 10:00', '2000-01-01T00:00:00Z', '１２/１２/２０００']) {
      expect(failure(value, 'DMY').code).toBe('validation_failed');
    }
  });

  it('YMD organisations only take ISO', () => {
    expect(failure('01/02/2000', 'YMD').code).toBe('validation_failed');
  });

  it('names the field in the message and the issue path, and the expected format', () => {
    const error = failure('31/02/2000', 'DMY', 'followUpDate');
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('followUpDate');
    expect(error.issues).toEqual([{ path: 'followUpDate', message: expect.stringContaining('DD/MM/YYYY') }]);
    expect(error.hint).toContain('DD/MM/YYYY');
    expect(failure('x', 'MDY').issues?.[0].message).toContain('MM/DD/YYYY');
    expect(error.toBody()).toMatchObject({ code: 'validation_failed', issues: [{ path: 'followUpDate' }] });
  });
});

describe('isIsoDate', () => {
  it.each([['2024-02-29', true], ['2023-02-29', false], ['2024-02-31', false], ['2024-13-01', false], ['2024-1-01', false], [20240101, false]])('%p → %p', (value, expected) => {
    expect(isIsoDate(value)).toBe(expected);
  });
});
