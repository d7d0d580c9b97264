import type { Response } from 'express';

const FINISHING_METHODS = ['send', 'redirect', 'end'] as const;

/**
 * Holds back the reply a handler writes inside a transaction until that transaction has committed.
 * Without this a browser following a sign-in redirect can ask for the next page before the new session
 * row is visible and be shown "signed out", or a form can be acknowledged before what it stored exists.
 * Status and headers set by the handler stay as they are (nothing is flushed before send); a failed
 * transaction drops the held reply and the error handler answers instead.
 */
export async function replyAfterCommit(res: Response, work: () => Promise<void>): Promise<void> {
  const held: Array<() => void> = [];
  const patched = res as unknown as Record<string, unknown>;
  for (const name of FINISHING_METHODS) {
    const original = patched[name] as (...args: unknown[]) => unknown;
    patched[name] = (...args: unknown[]) => {
      held.push(() => original.apply(res, args));
      return res;
    };
  }
  try {
    await work();
  } finally {
    for (const name of FINISHING_METHODS) delete patched[name];
  }
  for (const reply of held) reply();
}
