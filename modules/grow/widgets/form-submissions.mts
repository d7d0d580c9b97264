// Form submissions: grow_list_submissions' answers as submitted, under the questions that revision asked, and the contact each one matched or created.
import { el, startWidget, when } from '../../widget-view.mjs';

interface Submission {
  id: string; answers: Record<string, string | boolean | null> | null; questions: Array<{ key: string; label: string; type: string }>;
  contactOutcome: string; matchedOn: string[]; submittedAt: string;
}
interface Page { submissions: Submission[]; total: number }

const shown = (answer: string | boolean | null | undefined) => (answer === true ? 'Yes' : answer === false ? 'No' : answer ?? '');
const OUTCOMES: Record<string, string> = { created: 'New contact', matched: 'Matched', none: 'No contact', erased: 'Erased' };

function submission(s: Submission): HTMLElement {
  const outcome = OUTCOMES[s.contactOutcome] ?? s.contactOutcome;
  return el('li', { 'data-id': s.id },
    el('p', {}, el('span', { class: 'badge', 'data-field': 'outcome' }, s.contactOutcome === 'matched' && s.matchedOn.length > 0 ? `${outcome} (${s.matchedOn.join(', ')})` : outcome), ' ', when(s.submittedAt)),
    s.answers === null
      ? el('p', {}, 'Answers erased with the person.')
      : el('dl', {}, s.questions.filter((q) => shown(s.answers![q.key]) !== '').map((q) => [el('dt', {}, q.label), el('dd', {}, shown(s.answers![q.key]))])));
}

function page(data: Page): Node {
  return el('article', { class: 'card' },
    el('h1', {}, `Form submissions (${data.total.toLocaleString()})`),
    data.submissions.length === 0 ? el('p', {}, 'No submissions yet.') : el('ol', { class: 'submissions' }, data.submissions.map(submission)),
    data.total > data.submissions.length && el('p', {}, `Showing the newest ${data.submissions.length}.`));
}

startWidget('steward-form-submissions', page);
