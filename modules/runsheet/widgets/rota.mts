// Rota: runsheet_get_rota's coming plans, each with its positions, who serves in them and the places still open.
import { el, startWidget, when } from '../../widget-view.mjs';

interface Position { positionId: string; positionName: string; teamName: string; timeStartsAt: string | null; quantity: number; open: number; people: Array<{ contactId: string; name: string; status: string }> }
interface Plan { id: string; title: string | null; serviceTypeName: string; startsAt: string; state: string; positions: Position[] }

function rota({ plans }: { plans: Plan[] }): Node {
  if (plans.length === 0) return el('p', { class: 'muted' }, 'No plans in these weeks.');
  return el('section', {},
    el('h1', {}, 'Rota'),
    plans.map((plan) => el('article', { class: 'card', 'data-id': plan.id },
      el('h2', {}, `${plan.title ?? plan.serviceTypeName} `, el('span', { class: 'badge' }, plan.state)),
      el('p', { class: 'muted' }, when(plan.startsAt)),
      plan.positions.length === 0 ? el('p', { class: 'muted' }, 'No positions needed yet.')
        : el('ul', {}, plan.positions.map((position) => el('li', { 'data-position': position.positionId },
          // A position needed per time names its time (the 9:00 and the 11:00 are separate places).
          el('strong', {}, position.timeStartsAt ? `${position.positionName} (${when(position.timeStartsAt)}): ` : `${position.positionName}: `),
          position.people.map((person) => `${person.name}${person.status === 'accepted' ? '' : ' (unconfirmed)'}`).join(', ') || '—',
          position.open > 0 ? el('span', { class: 'badge', 'data-field': 'open' }, `${position.open} open`) : null))))));
}

startWidget('steward-rota', rota);
