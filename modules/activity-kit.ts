import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { ZodError } from 'zod';
import { StewardError, clipMessage, type ErrorBody } from '../core/errors';
import { stewardErrorBodyOf } from '../core/failures';
import { errorFields, log } from '../core/log';
import { jsonFits } from '../core/payload-limits';
import { TOOL_CALL_RETRY } from '../core/tool-plan';
import { databaseErrorOf } from '../db/sequelize';

/**
 * What every activity shares, kernel's and modules' alike: how a failure crosses into the
 * workflow (typed, bounded, retried only when a retry can help), and the heartbeat of a send.
 */

/**
 * Postgres errors that no retry can cure: bad data (class 22), a NOT NULL or CHECK
 * violation, and statement errors (class 42). Unique and foreign-key violations,
 * serialization failures, deadlocks and lost connections stay retryable: a race
 * that caused them may be gone on the next attempt.
 */
export function isDeterministicDatabaseError(given: unknown): boolean {
  const error = databaseErrorOf(given);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return false;
  return code.startsWith('22') || code.startsWith('42') || code === '23502' || code === '23514';
}

/**
 * Expected failures cross into the workflow as non-retryable ApplicationFailures typed by their stable code.
 * Bugs that would fail the same way on every attempt (a result that breaks the tool's output schema,
 * a deterministic database error) fail at once as internal_error, without their details, instead of
 * holding the caller through every retry.
 */
function describeDatabaseError(given: unknown): string {
  const { code, constraint, table } = databaseErrorOf(given) as { code?: string; constraint?: string; table?: string };
  return `pg ${code ?? '?'}${constraint ? ` (constraint ${constraint})` : ''}${table ? ` on ${table}` : ''}`;
}

/** Room an error's details may take; far more than any error needs, far less than a payload may hold. */
const MAX_DETAILS_BYTES = 16_384;
const MAX_ISSUES = 50;

/**
 * An error body small enough to travel anywhere. A failure crosses into the workflow, its
 * history and the worker's log, and fails the workflow with its message repeated (message,
 * details, stack): one built from a huge caller value once made the workflow's completion
 * larger than Temporal accepts, so its task failed and was retried, re-running the activity
 * and logging the value, until the execution timed out. Cut here, no tool's message can.
 */
export function boundedBody(body: ErrorBody): ErrorBody {
  const bounded: ErrorBody = { code: body.code, message: clipMessage(body.message) };
  if (body.hint) bounded.hint = clipMessage(body.hint, 500);
  if (body.issues) {
    bounded.issues = body.issues.slice(0, MAX_ISSUES).map((issue) => ({ path: clipMessage(issue.path, 200), message: clipMessage(issue.message, 500) }));
  }
  if (body.details && jsonFits(body.details, MAX_DETAILS_BYTES)) bounded.details = body.details;
  return bounded;
}

/** A unique violation is retried once (a concurrent insert it raced may now be visible and reused); after that it is the caller's conflict. */
const UNIQUE_VIOLATION = '23505';
const UNIQUE_VIOLATION_ATTEMPTS = 2;

/**
 * Expected failures are BENIGN: the SDK logs them at debug instead of once per layer with their
 * message and stack (the message quotes the caller's data); the call is logged once, by code.
 */
function stewardFailure(body: ErrorBody): ApplicationFailure {
  return ApplicationFailure.create({
    type: body.code, message: body.message, nonRetryable: true, details: [body], category: ApplicationFailureCategory.BENIGN,
  });
}

function internalFailure(): ApplicationFailure {
  return stewardFailure(new StewardError('internal_error', 'The tool call failed unexpectedly', {
    hint: 'This is a fault on our side, not in your arguments; retrying will not help.',
  }).toBody());
}

function conflictFailure(): ApplicationFailure {
  return stewardFailure(new StewardError('conflict', 'The call conflicts with a record that already exists', {
    hint: 'Look the record up and update it, or change the value that must be unique.',
  }).toBody());
}

/**
 * A database error as it may be retried: its SQLSTATE, constraint and table, without the
 * message and detail Postgres fills with the offending values, or the SQL and bound
 * parameters Sequelize adds; those would otherwise travel into the workflow's history and the log.
 */
function scrubbedDatabaseError(error: unknown): Error {
  const { code, constraint, table } = databaseErrorOf(error) as { code?: string; constraint?: string; table?: string };
  return Object.assign(new Error(`database error ${describeDatabaseError(error)}`), { name: 'DatabaseError', code, constraint, table });
}

function sqlstateOf(error: unknown): string | undefined {
  const code = (databaseErrorOf(error) as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * How toFailure takes an error: a typed refusal, a bug (a failed parse, a deterministic database
 * error) and a unique violation on its last allowed attempt are final; any other database error and
 * anything else is tried again.
 */
type FailureKind = 'refusal' | 'bug' | 'conflict' | 'database' | 'other';

function failureKindOf(error: unknown, attempt: number): FailureKind {
  if (error instanceof StewardError) return 'refusal';
  if (error instanceof ZodError || isDeterministicDatabaseError(error)) return 'bug';
  const sqlstate = sqlstateOf(error);
  if (sqlstate === UNIQUE_VIOLATION && attempt >= UNIQUE_VIOLATION_ATTEMPTS) return 'conflict';
  return sqlstate ? 'database' : 'other';
}

export function toFailure(error: unknown, attempt = 1): unknown {
  switch (failureKindOf(error, attempt)) {
    case 'refusal':
      return stewardFailure(boundedBody((error as StewardError).toBody()));
    case 'bug':
      // Postgres messages quote the offending value (caller data): log the SQLSTATE and constraint only.
      log('error', 'tool activity failed deterministically', error instanceof ZodError ? { errorName: 'ZodError' } : errorFields(databaseErrorOf(error)));
      return internalFailure();
    case 'conflict':
      return conflictFailure();
    case 'database':
      return scrubbedDatabaseError(error);
    case 'other':
      // Retried as it is, but never with a message long enough to swell the workflow's history or the log.
      if (error instanceof Error && error.message.length > 2_000) error.message = clipMessage(error.message);
      return error;
  }
}

/** The attempt of the activity running now; 1 outside an activity (a test, a script). */
function currentAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

/**
 * Whether a tool call's attempt failing now with this error is its last: toFailure makes it
 * non-retryable (a typed refusal, a bug, a unique violation seen twice), or it is the last of
 * TOOL_CALL_RETRY's attempts. A tool's `run` undoes outside work its `prepare` did (closes a
 * checkout session) only then: an attempt that will be tried again leaves it for the next attempt,
 * whose `prepare` gets the same session back under the call's idempotency key. Outside an activity
 * (a script, a test) nothing tries again, so every failure is the last.
 */
export function endsToolCall(error: unknown): boolean {
  let attempt: number;
  try {
    attempt = Context.current().info.attempt;
  } catch {
    return true;
  }
  const kind = failureKindOf(error, attempt);
  return (kind !== 'database' && kind !== 'other') || attempt >= TOOL_CALL_RETRY.maximumAttempts;
}

/**
 * The stable code of an activity's final failure (what `guarded` threw), or null while it will be tried
 * again. A typed error (refused by policy, or failed by a rule of its module) is final at once; any
 * other (a lost connection) only on the retry policy's last attempt, when the caller is told
 * `internal_error`. What leaves an audit event for a write that did not happen.
 */
export function finalErrorCodeOf(failure: unknown, maximumAttempts: number): string | null {
  if (failure instanceof ApplicationFailure && failure.nonRetryable) return stewardErrorBodyOf(failure)?.code ?? null;
  return currentAttempt() >= maximumAttempts ? 'internal_error' : null;
}

/** Runs an activity's work, turning what it throws into the failure the workflow should see (see toFailure). */
export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toFailure(error, currentAttempt());
  }
}


/**
 * Runs a send with a heartbeat every second: a worker that dies mid-send stops
 * beating, so the attempt is retried within seconds (the retry then waits for
 * the dead attempt's outbox lease to run out before deciding anything).
 */
export async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(), 1000);
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}
