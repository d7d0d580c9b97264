import { condition, patched, setHandler, type SignalDefinition } from '@temporalio/workflow';

/** Marks histories made since a poke that arrives while the workflow is busy is kept for its next wait. */
const POKE_KEPT_UNTIL_WAITED = 'grow-poke-kept-until-waited';

/**
 * Wires `signal` as a poke and returns the wait it cuts short: up to `ms`, or until poked. A poke
 * that arrives while the workflow is busy in an activity (a pause then a resume during one batch)
 * ends the next wait at once, so the workflow looks again instead of sleeping through it. Histories
 * from before this kept the old order, which forgot such a poke, and replay with it.
 */
export function pokeableWait(signal: SignalDefinition<[]>): (ms: number) => Promise<void> {
  let poked = false;
  setHandler(signal, () => { poked = true; });
  return async (ms: number) => {
    if (!patched(POKE_KEPT_UNTIL_WAITED)) poked = false;
    await condition(() => poked, Math.max(1, ms));
    poked = false;
  };
}
