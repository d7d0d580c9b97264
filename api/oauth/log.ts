import { errorFields, log } from '../../core/log';

/**
 * Logs that an OAuth step failed without its message: driver and library
 * messages can quote the values involved, and here those values are codes,
 * tokens and secrets.
 */
export function logFailure(where: string, error: unknown): void {
  log('error', 'oauth step failed', { where, ...errorFields(error) });
}
