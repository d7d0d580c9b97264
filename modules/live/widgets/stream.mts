// A live stream's dashboard: live_get_stream_status, as a card with its state here and at the provider and what stops it going live.
import { el, fields, startWidget, when } from '../../widget-view.mjs';

interface Status {
  stream: {
    id: string; title: string; status: string; startsAt: string; endsAt: string; completesBy: string; startedAt: string | null; endedAt: string | null;
    streamHours: number; watchPath: string; episodeId: string | null;
  };
  provider: { lifeCycleStatus: string; streamStatus: string | null; health: string | null } | null;
  ingestActive: boolean; chatOpen: boolean; canGoLive: boolean; reasons: string[];
}

function stream(data: Status): Node {
  const s = data.stream;
  return el('article', { class: 'card', 'data-id': s.id },
    el('h1', {}, s.title),
    el('p', { class: 'badges' },
      el('span', { class: 'badge', 'data-field': 'status' }, s.status),
      el('span', { class: 'badge', 'data-field': 'ingest' }, data.ingestActive ? 'ingest active' : 'no ingest'),
      el('span', { class: 'badge', 'data-field': 'chat' }, data.chatOpen ? 'chat open' : 'chat closed')),
    fields([
      ['Starts', when(s.startsAt)],
      ['Ends', when(s.endsAt)],
      ['Completes automatically by', when(s.completesBy)],
      ['Went live', s.startedAt ? when(s.startedAt) : null],
      ['Ended', s.endedAt ? when(s.endedAt) : null],
      ['Provider', data.provider ? `${data.provider.lifeCycleStatus}, ingest ${data.provider.streamStatus ?? 'unknown'}` : 'not configured'],
      ['Hours streamed', s.streamHours || null],
      ['Viewer page', s.watchPath],
      ['Episode', s.episodeId],
    ]),
    data.canGoLive ? el('p', { class: 'ok', 'data-field': 'ready' }, 'Ready to go live.')
      : el('ul', { 'data-field': 'reasons' }, data.reasons.map((reason) => el('li', {}, reason))));
}

startWidget('live-stream', stream);
