import { StewardError, quoteInput } from '../../core/errors';
import type { OrgSettings } from '../tool';

const FORMAT_LABEL: Record<OrgSettings['dateFormat'], string> = { DMY: 'DD/MM/YYYY', MDY: 'MM/DD/YYYY', YMD: 'YYYY-MM-DD' };

function isoIfValid(year: number, month: number, day: number): string | undefined {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * Reads a date the way the organisation writes dates: ISO (YYYY-MM-DD) always,
 * otherwise day-before-month for DMY organisations (the UK) and month-first for MDY ones.
 */
export function parseOrgDate(value: string, format: OrgSettings['dateFormat'], field: string): string {
  const text = value.trim();
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  let result: string | undefined;
  if (iso) {
    result = isoIfValid(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  } else {
    const local = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(text);
    if (local && format !== 'YMD') {
      const [first, second, year] = [Number(local[1]), Number(local[2]), Number(local[3])];
      result = format === 'DMY' ? isoIfValid(year, second, first) : isoIfValid(year, first, second);
    }
  }
  if (!result) {
    throw new StewardError('validation_failed', `${field}: ${quoteInput(value)} is not a valid date`, {
      issues: [{ path: field, message: `expected ${FORMAT_LABEL[format]} or YYYY-MM-DD` }],
      hint: `This organisation writes dates as ${FORMAT_LABEL[format]}; YYYY-MM-DD is always accepted.`,
    });
  }
  return result;
}

/** True for a real calendar date written YYYY-MM-DD (so 2024-02-31 is not one). */
export function isIsoDate(value: unknown): value is string {
  const match = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  return match !== null && isoIfValid(Number(match[1]), Number(match[2]), Number(match[3])) === value;
}

