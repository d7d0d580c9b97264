// A sermon episode: mediahub_get_episode, as a card with its state, speaker, scripture, media and the songs with their licences.
import { el, fields, startWidget } from '../../widget-view.mjs';

interface Song { id: string; title: string; ccliNumber: string | null; licence: string | null; licenceNumber: string | null }
interface Episode {
  id: string; title: string; seriesTitle: string; speaker: string | null; scripture: string | null; date: string; state: string;
  publishAt: string | null; audioItemId: string | null; videoItemId: string | null; transcriptStatus: string; songs: Song[];
}

const LICENCES: Record<string, string> = { public_domain: 'Public domain', streaming: 'Streaming licence', recording: 'Recording licence', owned: 'Our own' };

function episode(data: { episode: Episode }): Node {
  const e = data.episode;
  return el('article', { class: 'card', 'data-id': e.id },
    el('h1', {}, e.title),
    el('p', { class: 'badges' },
      el('span', { class: 'badge', 'data-field': 'state' }, e.state),
      el('span', { class: 'badge' }, e.seriesTitle)),
    fields([
      ['Speaker', e.speaker],
      ['Scripture', e.scripture],
      ['Date', e.date],
      ['Goes public', e.state === 'scheduled' && e.publishAt ? new Date(e.publishAt).toLocaleString() : null],
      ['Media', [e.videoItemId ? 'video' : null, e.audioItemId ? 'audio' : null].filter(Boolean).join(' and ') || 'none yet'],
      ['Transcript', e.transcriptStatus === 'none' ? null : e.transcriptStatus],
    ]),
    e.songs.length === 0 ? el('p', {}, 'No songs') : el('table', {},
      el('thead', {}, el('tr', {}, ['Song', 'CCLI', 'Licence'].map((heading) => el('th', {}, heading)))),
      el('tbody', {}, e.songs.map((song) => el('tr', { 'data-id': song.id, class: song.licence ? '' : 'warning' },
        el('td', {}, song.title), el('td', {}, song.ccliNumber ?? ''),
        el('td', { 'data-field': 'licence' }, song.licence ? `${LICENCES[song.licence] ?? song.licence}${song.licenceNumber ? ` ${song.licenceNumber}` : ''}` : 'None: publishing is blocked'))))));
}

startWidget('mediahub-episode', episode);
