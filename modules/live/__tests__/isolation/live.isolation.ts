import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Live: B's key with A's streams, polls, chat messages, prayer requests and A's service instance. */
export const isolation: IsolationPart = {
  tables: ['attendance_headcounts'],
  secrets: ['Apart evensong stream', 'Apart poll question', 'Apart chat message', 'Apart prayer request'],
  async seed({ harness, a, ids }) {
    const call = (tool: string, args: Record<string, unknown>) => harness.call(a.apiKey, tool, args);
    const instance = (await call('schedule_create_series', {
      title: 'Apart live service', rrule: 'FREQ=WEEKLY', startDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10), startTime: '18:00', durationMinutes: 60, timeZone: 'UTC',
    })).upcoming[0];
    const { stream } = await call('live_schedule_stream', { title: 'Apart evensong stream', startsAt: new Date(Date.now() - 60_000).toISOString(), durationMinutes: 120 });
    const { poll } = await call('live_create_poll', { streamId: stream.id, question: 'Apart poll question', options: ['Yes', 'No'] });
    const base = `${harness.url}/live/api/${a.orgId}/${stream.id}`;
    const post = (path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);
    const chat = await post('/chat', { viewerToken: 'apart-viewer-token-0001', name: 'Apart viewer', body: 'Apart chat message' });
    await post('/prayer', { viewerToken: 'apart-viewer-token-0001', body: 'Apart prayer request' });
    void ids;
    return { liveStream: stream.id, livePoll: poll.id, liveMessage: chat.id, liveInstance: instance.id };
  },
  entries: {
    live_schedule_stream: [{ args: (i) => ({ instanceId: i.liveInstance }) }],
    live_update_stream: [{ args: (i) => ({ streamId: i.liveStream, title: 'Taken over' }) }],
    live_get_stream_status: [{ args: (i) => ({ streamId: i.liveStream }) }],
    live_start_stream: [{ args: (i) => ({ streamId: i.liveStream }) }],
    live_end_stream: [{ args: (i) => ({ streamId: i.liveStream }) }],
    live_create_poll: [{ args: (i) => ({ streamId: i.liveStream, question: 'B question', options: ['a', 'b'] }) }],
    live_close_poll: [{ args: (i) => ({ pollId: i.livePoll }) }],
    live_get_poll_results: [
      { args: (i) => ({ pollId: i.livePoll }) },
      { label: 'stream', args: (i) => ({ streamId: i.liveStream }) },
    ],
    live_list_chat: [{ args: (i) => ({ streamId: i.liveStream, includeHidden: true }) }],
    live_moderate_chat: [{ args: (i) => ({ streamId: i.liveStream, messageId: i.liveMessage, action: 'hide' }) }],
    live_list_prayer_requests: [{ args: (i) => ({ streamId: i.liveStream }) }],
    live_get_viewer_stats: [{ args: (i) => ({ streamId: i.liveStream }) }],
    live_record_online_attendance: [
      { args: (i) => ({ streamId: i.liveStream }) },
      { label: 'instance', args: (i) => ({ streamId: i.liveStream, instanceId: i.liveInstance }) },
    ],
  },
};
