import { earlyResultWaiterCount, earlyResultsDelivered, offerEarlyResult, reportEarlyFailure, resultOf, waitForEarlyResult } from '../../temporal/early-results';

describe('early results (a tool call answered when its transaction commits)', () => {
  afterEach(() => expect(earlyResultWaiterCount()).toBe(0));

  it('hands a committed result to the caller waiting for that workflow, shaped as the workflow result would be', async () => {
    const wait = waitForEarlyResult('wf-a');
    offerEarlyResult('wf-a', { when: new Date('2026-11-24T09:00:00Z'), gone: undefined, n: 1 });
    const outcome = await wait.outcome;
    expect(outcome).toEqual({ kind: 'result', value: { when: '2026-11-24T09:00:00.000Z', n: 1 } });
    expect(outcome.kind === 'result' && outcome.value).not.toHaveProperty('gone');
    wait.cancel();
  });

  it('gives every waiter for the id its own copy, and nothing to waiters for other ids', async () => {
    const first = waitForEarlyResult('wf-b');
    const second = waitForEarlyResult('wf-b');
    const other = waitForEarlyResult('wf-c');
    offerEarlyResult('wf-b', { items: [1, 2] });
    const [a, b] = await Promise.all([first.outcome, second.outcome]);
    expect(a).toEqual({ kind: 'result', value: { items: [1, 2] } });
    expect(b).toEqual(a);
    expect(b.kind === 'result' && b.value).not.toBe(a.kind === 'result' && a.value);
    const settled = await Promise.race([other.outcome.then(() => 'settled'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 20))]);
    expect(settled).toBe('waiting');
    for (const wait of [first, second, other]) wait.cancel();
  });

  it('tells waiters when an attempt failed, so they turn to the workflow', async () => {
    const wait = waitForEarlyResult('wf-e');
    reportEarlyFailure('wf-e');
    await expect(wait.outcome).resolves.toEqual({ kind: 'failed' });
    wait.cancel();
  });

  it('keeps nothing when nobody waits, and forgets a waiter once it stops waiting', () => {
    const before = earlyResultsDelivered();
    offerEarlyResult('wf-nobody', { secret: 'x' });
    expect(earlyResultsDelivered()).toBe(before);
    const wait = waitForEarlyResult('wf-d');
    expect(earlyResultWaiterCount()).toBe(1);
    wait.cancel();
    wait.cancel();
    offerEarlyResult('wf-d', { late: true });
    expect(earlyResultsDelivered()).toBe(before);
  });
});

describe('a call\'s answer with early results (resultOf)', () => {
  const handleAnswering = (answer: () => Promise<unknown>) => {
    const handle = { asked: 0, result: () => { handle.asked += 1; return answer(); } };
    return handle;
  };

  it('takes the early result without asking the Temporal server', async () => {
    const handle = handleAnswering(() => new Promise(() => undefined));
    const wait = waitForEarlyResult('wf-r1');
    setTimeout(() => offerEarlyResult('wf-r1', { ok: 1 }), 5);
    await expect(resultOf(handle, wait, 1_000)).resolves.toEqual({ ok: 1 });
    expect(handle.asked).toBe(0);
    wait.cancel();
  });

  it('turns to the workflow at once when an attempt failed, and gives its error', async () => {
    const handle = handleAnswering(() => Promise.reject(new Error('workflow failed: not_found')));
    const wait = waitForEarlyResult('wf-r2');
    setTimeout(() => reportEarlyFailure('wf-r2'), 5);
    const started = Date.now();
    await expect(resultOf(handle, wait, 10_000)).rejects.toThrow('not_found');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(handle.asked).toBe(1);
    wait.cancel();
  });

  it('after the grace, answers with the workflow result when no activity ran here (a worker elsewhere)', async () => {
    const handle = handleAnswering(async () => ({ from: 'workflow' }));
    const wait = waitForEarlyResult('wf-r3');
    await expect(resultOf(handle, wait, 20)).resolves.toEqual({ from: 'workflow' });
    expect(handle.asked).toBe(1);
    wait.cancel();
  });

  it('after the grace, a slow call still answers with whichever comes first', async () => {
    const handle = handleAnswering(() => new Promise(() => undefined));
    const wait = waitForEarlyResult('wf-r4');
    setTimeout(() => offerEarlyResult('wf-r4', { slow: true }), 60);
    await expect(resultOf(handle, wait, 20)).resolves.toEqual({ slow: true });
    expect(handle.asked).toBe(1);
    wait.cancel();
  });

  it('without an early wait, is the workflow result', async () => {
    const handle = handleAnswering(async () => 'plain');
    await expect(resultOf(handle, undefined)).resolves.toBe('plain');
  });
});
