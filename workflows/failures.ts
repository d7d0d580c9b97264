import { ApplicationFailure } from '@temporalio/workflow';
import type { ErrorBody, ErrorCode } from '../core/errors';
import { failureBodyOf } from '../core/failures';

/** A typed, non-retryable failure the API turns back into a StewardError with the same code. */
export function stewardFailure(code: ErrorCode, message: string, extra: { hint?: string; details?: Record<string, unknown> } = {}): ApplicationFailure {
  const body: ErrorBody = { code, message, ...(extra.hint ? { hint: extra.hint } : {}), ...(extra.details ? { details: extra.details } : {}) };
  return ApplicationFailure.create({ type: code, message, nonRetryable: true, details: [body] });
}

/** The stable error a failure carries, wherever it sits in the cause chain (code, message and hint only: it is stored with the record). */
export function errorBodyOf(error: unknown): { code: string; message: string; hint?: string } {
  const body = failureBodyOf(error);
  if (body) return { code: body.code, message: body.message, ...(body.hint ? { hint: body.hint } : {}) };
  return { code: 'internal_error', message: error instanceof Error ? error.message : 'The action failed' };
}
