// Proposal queue: platform_pending_proposals' proposals, each with Approve / Reject.
import { el, startWidget } from '../../widget-view.mjs';
import { proposalCard, type Proposal } from './proposal-card.mjs';

startWidget<{ proposals: Proposal[] }>('steward-proposal-queue', ({ proposals }, runtime) => el('section', {},
  el('h1', {}, 'Proposals'),
  proposals.length === 0 ? el('p', { class: 'muted' }, 'No proposals to show.') : proposals.map((proposal) => proposalCard(proposal, runtime))));
