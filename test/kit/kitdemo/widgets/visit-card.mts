// A visit as a card: kitdemo_get_visit's visit, built with the widgets' shared view helpers.
import { el, fields, startWidget, when } from '../../../../modules/widget-view.mjs';

interface Visit {
  id: string;
  place: string;
  createdAt: string;
  deleted: boolean;
}

startWidget<{ visit: Visit }>('kitdemo-visit-card', ({ visit }) => el('article', { class: 'card', 'data-id': visit.id },
  el('h1', {}, `Visit at ${visit.place}`),
  fields([['When', when(visit.createdAt)], ['Removed', visit.deleted ? 'yes' : null]])));
