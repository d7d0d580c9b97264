import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import { errorFromFailure } from '../../api/tool-caller';
import { causeNamesOf, failureBodyOf, stewardErrorBodyOf } from '../../core/failures';
import { redirectLog } from '../../core/log';
import { StewardError } from '../../core/errors';
import { errorBodyOf, stewardFailure } from '../../core/failures';
import { databaseErrorOf } from '../../db/sequelize';
import { isDeterministicDatabaseError } from '../../modules/activity-kit';

/** One reader of a failure's cause chain, shared by the API (tool calls, approval updates) and the workflows. */
describe('reading the stable error out of a Temporal failure', () => {
  const wrapped = (cause: Error) => new ActivityFailure('Activity failed', 'runTool', '1', RetryState.NON_RETRYABLE_FAILURE, undefined, cause);

  it('finds a Steward error with its whole body, however deep in the cause chain', () => {
    const failure = wrapped(stewardFailure('not_found', 'Contact x was not found', { hint: 'Search first', details: { contactId: 'x' } }));
    expect(failureBodyOf(failure)).toEqual({ code: 'not_found', message: 'Contact x was not found', hint: 'Search first', details: { contactId: 'x' } });
    expect(stewardErrorBodyOf(failure)).toMatchObject({ code: 'not_found' });
    const error = errorFromFailure(failure);
    expect(error).toBeInstanceOf(StewardError);
    expect(error).toMatchObject({ code: 'not_found', hint: 'Search first', details: { contactId: 'x' } });
  });

  it('uses the type and message when a Steward-coded failure carries no body', () => {
    const failure = ApplicationFailure.create({ type: 'conflict', message: 'Already decided', nonRetryable: true });
    expect(failureBodyOf(failure)).toEqual({ code: 'conflict', message: 'Already decided' });
    expect(errorFromFailure(failure)).toMatchObject({ code: 'conflict', message: 'Already decided' });
  });

  it('reports another application failure type to the workflows, but never as a Steward error to callers', () => {
    const failure = wrapped(ApplicationFailure.create({ type: 'delivery_refused', message: 'Mailbox full', nonRetryable: true }));
    expect(errorBodyOf(failure)).toEqual({ code: 'delivery_refused', message: 'Mailbox full' });
    expect(stewardErrorBodyOf(failure)).toBeUndefined();
    expect(errorFromFailure(failure).code).toBe('internal_error');
  });

  it('stores only code, message and hint with a proposal\'s execution', () => {
    const failure = wrapped(stewardFailure('validation_failed', 'Bad input', { details: { field: 'x' } }));
    expect(errorBodyOf(failure)).toEqual({ code: 'validation_failed', message: 'Bad input' });
  });

  it('answers internal_error for chains without an application failure, and survives a cycle', () => {
    const timeout = new TimeoutFailure('timed out', undefined, 'START_TO_CLOSE' as never);
    expect(failureBodyOf(timeout)).toBeUndefined();
    expect(errorBodyOf(timeout).code).toBe('internal_error');
    const looped = new Error('loop') as Error & { cause?: unknown };
    looped.cause = looped;
    expect(failureBodyOf(looped)).toBeUndefined();
    // A look-alike that is not a Temporal ApplicationFailure is not trusted.
    expect(failureBodyOf({ type: 'forbidden', message: 'x', details: [{ code: 'forbidden', message: 'x' }] })).toBeUndefined();
  });
});

describe('an unexpected failure in the log', () => {
  it('names each link of the chain with its type, never its message, under the call\'s workflow id', () => {
    const timeout = new TimeoutFailure('secret message about pat@example.org', undefined, 'START_TO_CLOSE' as never);
    const failure = new ActivityFailure('Activity failed', 'runTool', '1', RetryState.TIMEOUT, undefined, timeout);
    expect(causeNamesOf(failure)).toBe('ActivityFailure>TimeoutFailure:START_TO_CLOSE');
    const lines: string[] = [];
    const restore = redirectLog((line) => lines.push(line));
    try {
      expect(errorFromFailure(failure, 'org-1:call-1').code).toBe('internal_error');
    } finally {
      restore();
    }
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ event: 'tool call failed without a stable error', workflowId: 'org-1:call-1', causes: 'ActivityFailure>TimeoutFailure:START_TO_CLOSE' });
    expect(lines[0]).not.toMatch(/secret|example\.org/);
  });

  it('logs nothing for a Steward refusal', () => {
    const lines: string[] = [];
    const restore = redirectLog((line) => lines.push(line));
    try {
      errorFromFailure(stewardFailure('not_found', 'Contact x was not found'));
    } finally {
      restore();
    }
    expect(lines).toEqual([]);
  });
});

describe('database errors raised through models', () => {
  it('are classified by the PostgreSQL error Sequelize wraps, not by the wrapper', () => {
    const pgError = Object.assign(new Error('null value in column'), { code: '23502', table: 'contacts' });
    const wrapped = Object.assign(new Error('notNull Violation'), { name: 'SequelizeDatabaseError', original: pgError, parent: pgError });
    expect(databaseErrorOf(wrapped)).toBe(pgError);
    expect(isDeterministicDatabaseError(wrapped)).toBe(true);
    const retryable = Object.assign(new Error('Validation error'), { original: Object.assign(new Error('duplicate key'), { code: '23505' }) });
    expect(isDeterministicDatabaseError(retryable)).toBe(false);
    const plain = new Error('not a database error');
    expect(databaseErrorOf(plain)).toBe(plain);
  });
});
