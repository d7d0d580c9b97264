import { ApplicationFailure } from '@temporalio/common';
import { isErrorCode, type ErrorBody, type ErrorCode } from './errors';

/**
 * Reading the stable error out of a Temporal failure, for the API and the
 * workflows alike. core/ imports nothing, so an ApplicationFailure is
 * recognised by the cross-realm marker Temporal puts on its prototype (the same
 * test `instanceof ApplicationFailure` makes), which works inside the workflow
 * sandbox and outside it.
 */

const APPLICATION_FAILURE = Symbol.for('__temporal_isApplicationFailure');

interface ApplicationFailureLike {
  type: string;
  message: string;
  details?: unknown[] | null;
}

function asApplicationFailure(value: unknown): ApplicationFailureLike | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const failure = value as { [APPLICATION_FAILURE]?: unknown; type?: unknown; message?: unknown };
  if (failure[APPLICATION_FAILURE] !== true || typeof failure.type !== 'string' || !failure.type) return undefined;
  return value as ApplicationFailureLike;
}

function isErrorBody(value: unknown): value is ErrorBody {
  const body = value as { code?: unknown; message?: unknown } | null;
  return Boolean(body) && typeof body === 'object' && isErrorCode(body!.code) && typeof body!.message === 'string';
}

/** An error and its causes, outermost first; a cause that points back into the chain ends it. */
export function* causeChainOf(error: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  for (let current: unknown = error; current && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    yield current;
  }
}

/**
 * The class names along a cause chain, outermost first, each with its failure type, timeout type or
 * numeric status where it has one ("WorkflowFailedError>ActivityFailure>TimeoutFailure:START_TO_CLOSE"):
 * names from the code base, never a message, so the log can say where an unexpected failure came from.
 */
export function causeNamesOf(error: unknown): string {
  return [...causeChainOf(error)].map(causeNameOf).join('>');
}

function causeNameOf(error: unknown): string {
  if (!error || typeof error !== 'object') return typeof error;
  const given = error as { name?: unknown; type?: unknown; timeoutType?: unknown; code?: unknown };
  const name = typeof given.name === 'string' ? given.name : 'Error';
  const kind = [given.type, given.timeoutType, given.code].find((value) => typeof value === 'string' || typeof value === 'number');
  return kind === undefined ? name : `${name}:${String(kind)}`;
}

/**
 * The error a failure carries, from the first ApplicationFailure in its cause
 * chain (outermost first): for a Steward error code, the body it was thrown with
 * (code, message, hint, details); for any other type, that type and message.
 * Undefined when the chain holds no ApplicationFailure (a timeout, a termination).
 */
export function failureBodyOf(error: unknown): { code: string; message: string; hint?: string; issues?: ErrorBody['issues']; details?: Record<string, unknown> } | undefined {
  for (const current of causeChainOf(error)) {
    const failure = asApplicationFailure(current);
    if (!failure) continue;
    if (isErrorCode(failure.type)) {
      const body = failure.details?.[0];
      return isErrorBody(body) ? body : { code: failure.type, message: failure.message };
    }
    return { code: failure.type, message: failure.message };
  }
  return undefined;
}

/** Like failureBodyOf, but only a Steward error: the body a StewardError is rebuilt from. */
export function stewardErrorBodyOf(error: unknown): ErrorBody | undefined {
  const body = failureBodyOf(error);
  return body && isErrorCode(body.code) ? (body as ErrorBody) : undefined;
}

/** A typed, non-retryable failure the API turns back into a StewardError with the same code (thrown by workflows). */
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
