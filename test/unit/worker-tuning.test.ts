import { workerTuning, workflowThreads } from '../../worker/create-worker';

function withThreads<T>(value: string | undefined, run: () => T): T {
  const before = process.env.STEWARD_WORKFLOW_THREADS;
  if (value === undefined) delete process.env.STEWARD_WORKFLOW_THREADS;
  else process.env.STEWARD_WORKFLOW_THREADS = value;
  try {
    return run();
  } finally {
    if (before === undefined) delete process.env.STEWARD_WORKFLOW_THREADS;
    else process.env.STEWARD_WORKFLOW_THREADS = before;
  }
}

describe('STEWARD_WORKFLOW_THREADS', () => {
  it('defaults to one sandbox thread', () => {
    expect(withThreads(undefined, workerTuning)).toMatchObject({ workflowThreadPoolSize: 1 });
    expect(withThreads(undefined, workerTuning).debugMode).toBeUndefined();
  });

  it('takes a thread count, or 0 for the main thread (the SDK debug mode)', () => {
    expect(withThreads('2', workerTuning)).toMatchObject({ workflowThreadPoolSize: 2 });
    const onMain = withThreads('0', workerTuning);
    expect(onMain.debugMode).toBe(true);
    expect(onMain.workflowThreadPoolSize).toBeUndefined();
  });

  it.each(['-1', '17', '1.5', 'two'])('refuses %s with a message naming the setting', (value) => {
    expect(() => withThreads(value, workflowThreads)).toThrow(/STEWARD_WORKFLOW_THREADS must be a whole number from 0/);
  });
});
