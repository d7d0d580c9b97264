import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Broadcasts: B's key with A's previewed broadcast and A's tag as an audience. */
export const isolation: IsolationPart = {
  tables: ['channel_broadcasts', 'channel_broadcast_recipients'],
  secrets: ['Apart harvest broadcast', 'The Apart harvest supper is on Friday'],
  async seed({ harness, a, ids }) {
    const previewed = await harness.call(a.apiKey, 'channels_preview_broadcast', {
      name: 'Apart harvest broadcast', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: ids.tag }, body: 'The Apart harvest supper is on Friday',
    });
    return { broadcast: previewed.broadcast.id, broadcastHash: previewed.previewHash };
  },
  entries: {
    channels_preview_broadcast: [
      { label: "A's broadcast", args: (i) => ({ broadcastId: i.broadcast, name: 'x', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: i.tag }, body: 'x' }) },
      { label: "A's tag as the audience", args: (i) => ({ name: 'x', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: i.tag }, body: 'x' }) },
    ],
    channels_schedule_broadcast: [{ args: (i) => ({ broadcastId: i.broadcast, previewHash: i.broadcastHash }) }],
    channels_cancel_broadcast: [{ args: (i) => ({ broadcastId: i.broadcast }) }],
    channels_get_broadcast: [{ args: (i) => ({ broadcastId: i.broadcast }) }],
    channels_list_broadcasts: [{ args: () => ({}), outcome: 'no_leak' }],
  },
};
