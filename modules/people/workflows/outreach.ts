import {
  allHandlersFinished, condition, proxyActivities, setHandler, upsertSearchAttributes,
} from '@temporalio/workflow';
import type { OutreachActivities, OutreachStep, SendOutcome } from '../activities/outreach';
import { outreachDecisionUpdate, outreachStateQuery } from '../../../core/approval-messages';
import {
  OUTREACH_RECORD_RETRY, SEND_NEEDS_REVIEW, credentialActorOf, mayDecideOutreach, type OutreachDecision, type OutreachItemRecord, type OutreachState,
  type OutreachWorkflowInput,
} from '../../../core/approvals';
import { SA_KIND, SA_ORG, SA_STATUS } from '../../../core/search-attributes';
import { errorBodyOf, stewardFailure } from '../../../core/failures';

type OutreachItem = OutreachItemRecord;

const records = proxyActivities<OutreachActivities>({
  startToCloseTimeout: '30 seconds',
  retry: OUTREACH_RECORD_RETRY,
});

// The send heartbeats every second: a worker that dies mid-send is noticed within seconds and the send retried
// (the retry waits for the dead attempt's outbox lease to run out; an SMTP send it cannot vouch for goes to needs_review).
const sender = proxyActivities<OutreachActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 50 },
});

const TERMINAL = new Set(['sent', 'declined', 'cancelled']);

/**
 * One pastoral message: pending_review → approved → sent, or declined /
 * cancelled (only before sending). Decisions are updates whose validators
 * check the role, the state and the content version, so a decision either
 * applies to exactly what the person saw or is refused with a reason.
 */
export async function outreachWorkflow(input: OutreachWorkflowInput): Promise<OutreachItem> {
  // Handlers are registered before the item is loaded, so a decision that arrives at once is not lost;
  // until then the validator lets it in and the handler checks it once the item is there.
  let loaded = false;
  let state: OutreachState = { id: input.itemId, orgId: input.orgId, status: 'pending_review', contentVersion: 0, sending: false, sendError: null };
  let item = undefined as unknown as OutreachItem;
  const setStatus = () => upsertSearchAttributes([
    { key: SA_ORG, value: input.orgId }, { key: SA_KIND, value: 'outreach' }, { key: SA_STATUS, value: state.status },
  ]);
  const apply = (step: OutreachStep) => {
    const sending = state.sending;
    ({ state, item } = step);
    state.sending = sending;
    setStatus();
  };

  let busy = false;
  let sendsRequested = 0;
  let sendsDone = 0;

  setHandler(outreachStateQuery, () => ({ state, item }));
  setHandler(outreachDecisionUpdate, async (decision) => {
    if (!loaded) {
      await condition(() => loaded && !busy);
      const problem = problemWith(decision);
      if (problem) throw problem;
    }
    busy = true;
    try {
      const userId = decision.principal.userId;
      // The deciding credential, for the decision's audit event.
      const decidedBy = credentialActorOf(decision.principal);
      if (decision.decision === 'edit') {
        apply(await records.editOutreachRecord(input.orgId, input.itemId, decision.changes ?? {}, decidedBy));
        return item;
      }
      if (decision.decision === 'approve') {
        if (state.status === 'pending_review') apply(await records.approveOutreachRecord(input.orgId, input.itemId, decision.contentVersion!, userId, decidedBy));
        // Approving an item in needs_review is the person's decision to send it again, although it may have arrived.
        else if (state.sendError?.code === SEND_NEEDS_REVIEW) apply(await records.releaseOutreachForResend(input.orgId, input.itemId, userId, decidedBy));
        const ticket = ++sendsRequested;
        busy = false;
        // The decider hears how the send went (sent, or approved with the reason it could not go).
        await condition(() => sendsDone >= ticket || TERMINAL.has(state.status));
        return item;
      }
      apply(await records.closeOutreachRecord(input.orgId, input.itemId, decision.decision === 'decline' ? 'declined' : 'cancelled', userId, decision.reason ?? null, decidedBy));
      return item;
    } finally {
      busy = false;
    }
  }, {
    validator: (decision) => {
      if (!loaded) return;
      const problem = problemWith(decision);
      if (problem) throw problem;
    },
  });

  function problemWith(decision: OutreachDecision): Error | undefined {
    try {
      check(decision);
      return undefined;
    } catch (error) {
      return error as Error;
    }
  }

  function check(decision: OutreachDecision): void {
      if (decision.principal.orgId !== input.orgId) throw stewardFailure('not_found', `Outreach item ${input.itemId} was not found`);
      if (!mayDecideOutreach(decision.principal)) {
        throw stewardFailure('forbidden', 'Only owners, admins and staff holding people:write can decide pastoral messages');
      }
      if (busy) throw stewardFailure('conflict', 'Another decision on this message is being processed; try again in a moment');
      const status = state.status;
      if (status === 'sent') throw stewardFailure('conflict', 'The message has already been sent');
      if (TERMINAL.has(status)) throw stewardFailure('conflict', `The message is already ${status}`);
      switch (decision.decision) {
        case 'edit':
          if (status !== 'pending_review') throw stewardFailure('conflict', `Only messages pending review can be edited; this one is ${status}`);
          if (decision.contentVersion !== undefined && decision.contentVersion !== state.contentVersion) {
            throw stewardFailure('conflict', `The content changed since version ${decision.contentVersion} (now ${state.contentVersion})`, { details: { currentVersion: state.contentVersion } });
          }
          return;
        case 'approve':
          if (status === 'approved') {
            if (state.sending || !state.sendError) throw stewardFailure('conflict', 'The message is already approved and being sent');
            return; // approving again retries a send that was refused (e.g. after the allowance was raised) or left needs_review
          }
          if (decision.contentVersion !== state.contentVersion) {
            throw stewardFailure('conflict', `The content changed since version ${decision.contentVersion}; review version ${state.contentVersion} and approve that`, {
              details: { currentVersion: state.contentVersion }, hint: 'people_get_outreach_item shows the current content.',
            });
          }
          return;
        case 'decline':
          if (status !== 'pending_review') throw stewardFailure('conflict', `Only messages pending review can be declined; this one is ${status}`);
          return;
        case 'cancel':
          if (state.sending) throw stewardFailure('conflict', 'The message is being sent and can no longer be cancelled');
          return;
      }
  }

  ({ state, item } = await records.loadOutreach(input.orgId, input.itemId));
  loaded = true;
  setStatus();
  if (state.status === 'approved' && !state.sendError) sendsRequested = 1;

  while (!TERMINAL.has(state.status)) {
    await condition(() => sendsRequested > sendsDone || TERMINAL.has(state.status));
    if (TERMINAL.has(state.status)) break;
    const target = sendsRequested;
    state.sending = true;
    let outcome: SendOutcome;
    try {
      outcome = await sender.sendOutreach(input.orgId, input.itemId);
    } catch (error) {
      const body = errorBodyOf(error);
      state.sending = false;
      apply(await records.recordSendError(input.orgId, input.itemId, { code: body.code, message: body.message }));
      sendsDone = target;
      continue;
    }
    state.sending = false;
    apply({ item: outcome.item, state: { ...state, status: outcome.item.status, contentVersion: outcome.item.contentVersion, sendError: outcome.item.sendError } });
    sendsDone = target;
  }
  await condition(allHandlersFinished);
  return item;
}
