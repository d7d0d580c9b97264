import { StewardError, httpStatusFor, type ErrorBody } from '../core/errors';
import { causeNamesOf } from '../core/failures';
import { errorFields, log } from '../core/log';

/** Any thrown value as a stable error body; unexpected errors never leak their internals. */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof StewardError) return error.toBody();
  log('error', 'unexpected error', { ...errorFields(error), causes: causeNamesOf(error) });
  return { code: 'internal_error', message: 'Something went wrong on our side; please try again' };
}

export function statusOf(body: ErrorBody): number {
  return httpStatusFor(body.code);
}
