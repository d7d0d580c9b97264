// Proposal review: platform_get_proposal's proposal, with its action and Approve / Reject.
import { startWidget } from '../../widget-view.mjs';
import { proposalCard, type Proposal } from './proposal-card.mjs';

startWidget<{ proposal: Proposal }>('steward-proposal-review', ({ proposal }, runtime) => proposalCard(proposal, runtime));
