import { ApplicationFailure } from '@temporalio/workflow';
import { isErrorCode, type ErrorBody, type ErrorCode } from '../core/errors';

/** A typed, non-retryable failure the API turns back into a StewardError with the same code. */
export function stewardFailure(code: ErrorCode, message: string, extra: { hint?: string; details?: Record<string, unknown> } = {}): ApplicationFailure {
  const body: ErrorBody = { code, message, ...(extra.hint ? { hint: extra.hint } : {}), ...(extra.details ? { details: extra.details } : {}) };
  return ApplicationFailure.create({ type: code, message, nonRetryable: true, details: [body] });
}

/** The stable error a failure carries, wherever it sits in the cause chain. */
export function errorBodyOf(error: unknown): { code: string; message: string; hint?: string } {
  let current: unknown = error;
  while (current) {
    if (current instanceof ApplicationFailure && current.type && isErrorCode(current.type)) {
      const body = current.details?.[0] as ErrorBody | undefined;
      return body ? { code: body.code, message: body.message, ...(body.hint ? { hint: body.hint } : {}) } : { code: current.type, message: current.message };
    }
    if (current instanceof ApplicationFailure && current.type) return { code: current.type, message: current.message };
    current = (current as { cause?: unknown }).cause;
  }
  return { code: 'internal_error', message: error instanceof Error ? error.message : 'The action failed' };
}
