import { StewardError, httpStatusFor, type ErrorBody } from '../core/errors';

/** Any thrown value as a stable error body; unexpected errors never leak their internals. */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof StewardError) return error.toBody();
  console.error('unexpected error', error instanceof Error ? error.message : error);
  return { code: 'internal_error', message: 'Something went wrong on our side; please try again' };
}

export function statusOf(body: ErrorBody): number {
  return httpStatusFor(body.code);
}
