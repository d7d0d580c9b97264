import { z } from 'zod';

/** A calendar date, YYYY-MM-DD, that exists. */
export const isoDate = () => z.string().max(10).regex(/^\d{4}-\d{2}-\d{2}$/, 'use YYYY-MM-DD')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  }, 'not a real date');

export const contactIdArg = z.uuid().describe('The contact\'s id');

