import { relayedOf } from '../../temporal/call-progress-relay';

/**
 * What an API accepts from the progress channel: only a report shaped as the relay sends it (any
 * process may NOTIFY on the channel), with figures that are numbers and a line of bounded length.
 */
describe('relayed call progress', () => {
  it('reads a report as the relay sends it', () => {
    expect(relayedOf(JSON.stringify({ workflowId: 'w-1', done: 200, total: 400, message: 'Imported 200 of 400 rows' })))
      .toEqual({ workflowId: 'w-1', done: 200, total: 400, message: 'Imported 200 of 400 rows' });
    expect(relayedOf(JSON.stringify({ workflowId: 'w-1', done: 3 }))).toEqual({ workflowId: 'w-1', done: 3 });
  });

  it('ignores what is not a report', () => {
    for (const payload of [undefined, '', 'not json', 'null', '[]', '{"done":1}', '{"workflowId":"w","done":"1"}', '{"workflowId":7,"done":1}']) {
      expect(relayedOf(payload)).toBeUndefined();
    }
  });

  it('drops a total that is not a number and cuts an overlong line', () => {
    const relayed = relayedOf(JSON.stringify({ workflowId: 'w', done: 1, total: 'many', message: 'x'.repeat(1000) }));
    expect(relayed).toEqual({ workflowId: 'w', done: 1, message: 'x'.repeat(200) });
  });
});
