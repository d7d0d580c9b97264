import { sleep } from '@temporalio/workflow';

/**
 * A deliberately incompatible toolCallWorkflow: it starts a timer where the
 * real one runs its activities. test/e2e/replay.test.ts replays a committed
 * history against it to show that the replay check catches such a change.
 */
export async function toolCallWorkflow(): Promise<unknown> {
  await sleep(1);
  return null;
}
