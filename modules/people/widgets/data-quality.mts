// Data quality dashboard: people_fetch_data_quality_dashboard's score, the six category scores
// with the formula each was computed by, the checks with most contacts, duplicates, the review
// queue and running jobs. Read-only: fixes and merges are previewed and applied through their tools.
import { el, fields, startWidget, when } from '../../widget-view.mjs';

interface Category { category: string; score: number | null; formula: string | null; explanation: string | null }
interface Check { key: string; title: string; category: string; affected: number; fix: string | null }
interface Job { id: string; kind: string; status: string; progress: { done: number; total: number; percent: number } }
interface Dashboard {
  summary: { scanned: boolean; score: number | null; scannedAt: string | null; contacts: number; formula: string; categories: Category[]; history: Array<{ score: number; scannedAt: string }> };
  topChecks: Check[];
  duplicates: { exactGroups: number; fuzzyPairs: number; dismissedGroups: number; dismissedPairs: number };
  openQueueItems: number;
  runningJobs: Job[];
}

const LABELS: Record<string, string> = {
  completeness: 'Completeness', validity: 'Validity', duplicates: 'Duplicates', consistency: 'Consistency', freshness: 'Freshness', contactability: 'Consent & contactability',
};

function categoryRow(category: Category): HTMLElement {
  return el('article', { class: 'card', 'data-category': category.category },
    el('h2', {}, `${LABELS[category.category] ?? category.category}: `, el('span', { 'data-field': 'category-score' }, category.score === null ? '–' : `${category.score}/100`)),
    category.formula ? el('p', { class: 'muted', 'data-field': 'formula' }, category.formula) : null,
    category.explanation ? el('p', { class: 'muted' }, category.explanation) : null);
}

function dashboard(data: Dashboard): Node {
  const { summary } = data;
  if (!summary.scanned) {
    return el('section', {}, el('h1', {}, 'Data quality'),
      el('p', { class: 'muted' }, 'No scan has finished yet: run one with people_run_data_quality_scan.'),
      data.runningJobs.length > 0 ? el('p', { 'data-field': 'running' }, `Scan running: ${data.runningJobs[0].progress.done} of ${data.runningJobs[0].progress.total} contacts checked`) : null);
  }
  return el('section', {},
    el('h1', {}, 'Data quality ', el('span', { class: 'badge', 'data-field': 'score' }, `${summary.score}/100`)),
    el('p', { class: 'muted' }, `${summary.contacts} contacts, scanned ${when(summary.scannedAt)}. ${summary.formula}`),
    summary.categories.map(categoryRow),
    el('h2', {}, 'Checks with most contacts'),
    data.topChecks.length === 0 ? el('p', { class: 'muted' }, 'Every check passed.') : fields(data.topChecks.map((check) => [check.title, check.affected] as const)),
    el('h2', {}, 'Duplicates'),
    fields([
      ['Exact groups (same email or phone)', data.duplicates.exactGroups],
      ['Likely pairs', data.duplicates.fuzzyPairs],
      ['Dismissed groups / pairs', `${data.duplicates.dismissedGroups} / ${data.duplicates.dismissedPairs}`],
      ['Waiting for a decision', data.openQueueItems],
    ]),
    data.runningJobs.length > 0
      ? el('p', { 'data-field': 'running' }, data.runningJobs.map((job) => `${job.kind} ${job.status}: ${job.progress.done} of ${job.progress.total}`).join('; '))
      : null,
    summary.history.length > 1 ? el('p', { class: 'muted' }, `Earlier scores: ${summary.history.slice(1, 6).map((h) => h.score).join(', ')}`) : null);
}

startWidget('steward-data-quality', dashboard);
