import { StewardError } from '../../../../../core/errors';
import { hasScope, type Principal } from '../../../../../core/principal';
import { SAFEGUARDING_SCOPE } from '../../../../../core/scopes';
import { z } from 'zod';

/** A calendar date, YYYY-MM-DD, that exists. */
export const isoDate = () => z.string().max(10).regex(/^\d{4}-\d{2}-\d{2}$/, 'use YYYY-MM-DD')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  }, 'not a real date');

export const contactIdArg = z.uuid().describe('The contact\'s id');

/**
 * Safeguarding reads declare people:read (the catalogue keeps every read tool on a :read scope) and
 * then require people:safeguarding here, before anything is read; writes declare people:safeguarding itself.
 */
export function requireSafeguardingScope(principal: Principal): void {
  if (!hasScope(principal, SAFEGUARDING_SCOPE)) {
    throw new StewardError('insufficient_scope', 'This needs the scope people:safeguarding, which this credential does not hold', {
      hint: 'Ask an owner or admin for a credential with safeguarding permission.',
    });
  }
}
