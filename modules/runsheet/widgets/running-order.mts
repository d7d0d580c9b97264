// Running order: runsheet_get_plan's items laid end to end from the service start, headers holding
// their items, with each item's length and clock time; then who is serving, by position.
import { el, startWidget, when } from '../../widget-view.mjs';

interface Item { id: string; parentId: string | null; kind: string; title: string; lengthSeconds: number; key: string | null; notes: Record<string, string> }
interface Person { id: string; positionName: string; teamName: string; name: string; status: string }
interface Plan {
  id: string; title: string | null; serviceTypeName: string; date: string; state: string; startsAt: string; timeZone: string;
  totalLengthSeconds: number; items: Item[]; people: Person[];
}

const minutes = (seconds: number) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

function clock(iso: string, zone: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', timeZone: zone });
}

function runningOrder({ plan }: { plan: Plan }): Node {
  let at = Date.parse(plan.startsAt);
  const rows = plan.items.map((item) => {
    const starts = new Date(at).toISOString();
    if (item.kind !== 'header') at += item.lengthSeconds * 1000;
    const notes = Object.entries(item.notes).map(([category, note]) => `${category}: ${note}`).join(' · ');
    return item.kind === 'header'
      ? el('tr', { class: 'header', 'data-id': item.id }, el('th', { colspan: '4' }, item.title))
      : el('tr', { 'data-id': item.id, 'data-kind': item.kind },
        el('td', {}, clock(starts, plan.timeZone)),
        el('td', {}, item.parentId ? `  ${item.title}` : item.title, item.key ? el('span', { class: 'badge' }, item.key) : null),
        el('td', {}, minutes(item.lengthSeconds)),
        el('td', { class: 'muted' }, notes));
  });
  const people = plan.people.filter((person) => person.status !== 'declined');
  return el('section', {},
    el('h1', {}, plan.title ?? plan.serviceTypeName),
    el('p', { class: 'muted' }, `${when(plan.startsAt)} · ${plan.state} · ${minutes(plan.totalLengthSeconds)} in all`),
    plan.items.length === 0 ? el('p', { class: 'muted' }, 'No items yet.') : el('table', {}, el('tbody', {}, rows)),
    el('h2', {}, 'Serving'),
    people.length === 0 ? el('p', { class: 'muted' }, 'Nobody scheduled yet.')
      : el('ul', {}, people.map((person) => el('li', { 'data-id': person.id, 'data-status': person.status }, `${person.positionName} (${person.teamName}): ${person.name}`, el('span', { class: 'badge' }, person.status)))));
}

startWidget('steward-running-order', runningOrder);
