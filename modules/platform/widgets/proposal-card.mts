// One proposal as a card, shared by the proposal review and the proposal queue. Approve and
// Reject call platform_approve_proposal / platform_reject_proposal through the host; the
// server checks the role, the scope of the action and that nobody decided it first.
import { decisionBar, el, fields, when, type WidgetRuntime } from '../../widget-view.mjs';

export interface Proposal {
  id: string;
  status: string;
  summary: string;
  agent: string | null;
  action: { tool: string; arguments: Record<string, unknown> };
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
  decisionReason: string | null;
  execution: { status: string; error?: { code: string; message: string } } | null;
}

function executionLine(execution: Proposal['execution']): string | null {
  if (!execution) return null;
  return execution.status === 'succeeded' ? 'Carried out' : `Failed: ${execution.error?.message ?? 'unknown error'}`;
}

function approvedLine(execution: Proposal['execution']): string {
  if (!execution) return 'Approved';
  return execution.status === 'succeeded' ? 'Approved and carried out' : `Approved, but it failed: ${execution.error?.message ?? 'unknown error'}`;
}

function decisions(proposal: Proposal, runtime: WidgetRuntime, onDecided: (data: Record<string, unknown>) => void): HTMLElement {
  const args = { proposalId: proposal.id };
  return decisionBar(runtime, [
    {
      label: 'Approve', action: 'approve', primary: true, tool: 'platform_approve_proposal', args,
      success: (data) => approvedLine(data.execution as Proposal['execution']),
    },
    { label: 'Reject', action: 'reject', tool: 'platform_reject_proposal', args, success: () => 'Rejected: it will not be carried out' },
  ], onDecided);
}

export function proposalCard(proposal: Proposal, runtime: WidgetRuntime): HTMLElement {
  const badge = el('span', { class: 'badge', 'data-field': 'status' }, proposal.status);
  const article = el('article', { class: 'card', 'data-id': proposal.id, 'data-status': proposal.status },
    el('h2', {}, `${proposal.summary} `, badge),
    fields([
      ['Proposed by', proposal.agent ? `${proposal.agent} agent` : 'a tool call that needs approval'],
      ['Tool', proposal.action.tool],
      ['Proposed', when(proposal.createdAt)],
      ['Expires', proposal.status === 'pending' ? when(proposal.expiresAt) : null],
      ['Decided', when(proposal.decidedAt)],
      ['Reason', proposal.decisionReason],
      ['Outcome', executionLine(proposal.execution)],
    ]),
    el('details', {}, el('summary', {}, 'Arguments'), el('pre', {}, JSON.stringify(proposal.action.arguments, null, 2))));
  if (proposal.status === 'pending') {
    article.appendChild(decisions(proposal, runtime, (data) => {
      article.dataset.status = String(data.status);
      badge.textContent = String(data.status);
    }));
  }
  return article;
}
