// Care timeline: people_list_care_timeline's entries, newest first, as a vertical timeline.
import { el, startWidget, when } from '../../widget-view.mjs';

interface Entry {
  id: string;
  kind: string;
  summary: string;
  occurredAt: string;
}

/** `note_added` reads as "Note added". */
function kindLabel(kind: string): string {
  const words = kind.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function timeline({ entries }: { entries: Entry[] }): Node {
  if (entries.length === 0) return el('p', { class: 'muted' }, 'Nothing on this care timeline yet.');
  return el('section', {},
    el('h1', {}, 'Care timeline'),
    el('ol', { class: 'timeline' }, entries.map((entry) => el('li', { 'data-id': entry.id, 'data-kind': entry.kind },
      el('time', { datetime: entry.occurredAt }, when(entry.occurredAt)),
      el('strong', {}, kindLabel(entry.kind)),
      el('p', {}, entry.summary)))));
}

startWidget('steward-care-timeline', timeline);
