import { OUTREACH_RECORD_RETRY, type CredentialActor, type OutreachChannel, type OutreachState } from '../../../core/approvals';
import { withTransaction } from '../../../db/pool';
import { finalErrorCodeOf, guarded, withHeartbeat } from '../../activity-kit';
import type { ActivityDeps } from '../../module';
import {
  closeOutreach, editOutreachContent, markOutreachApproved, personActor, recordRefusedOutreachDecision, requireOutreachItem, type OutreachItem, type RefusedOutreachDecision,
} from '../outreach';
import { recordOutreachSendError } from '../outreach-delivery';
import { createOutreachSender, type SendOutcome } from './outreach-sender';

export type { SendOutcome };

/** What the outreach workflow keeps about its item. */
export function outreachStateOf(item: OutreachItem, orgId: string, sending = false): OutreachState {
  return { id: item.id, orgId, status: item.status, contentVersion: item.contentVersion, sending, sendError: item.sendError };
}

export interface OutreachStep {
  state: OutreachState;
  item: OutreachItem;
}

/** Outreach records and the send, for the outreach workflow. */
export function createOutreachActivities(deps: ActivityDeps) {
  const { pool } = deps;
  const sender = createOutreachSender(deps);

  async function setSendError(orgId: string, itemId: string, error: { code: string; message: string }): Promise<OutreachItem> {
    await recordOutreachSendError(pool, orgId, itemId, error);
    return requireOutreachItem(pool, orgId, itemId);
  }

  /**
   * A decision's step: its failure, once final, leaves the decision's `denied` or `failed` event before
   * the workflow (and so the decider) hears of it (a refused role, a stale version, an item no longer
   * pending, content a channel cannot carry). The API records only what was refused before a step ran.
   */
  async function decisionStep(refusal: Omit<RefusedOutreachDecision, 'errorCode'>, work: () => Promise<OutreachItem>): Promise<OutreachStep> {
    try {
      const item = await guarded(work);
      return { item, state: outreachStateOf(item, refusal.orgId) };
    } catch (failure) {
      const errorCode = finalErrorCodeOf(failure, OUTREACH_RECORD_RETRY.maximumAttempts);
      if (errorCode) await recordRefusedOutreachDecision(pool, { ...refusal, errorCode });
      throw failure;
    }
  }

  return {
    async loadOutreach(orgId: string, itemId: string): Promise<OutreachStep> {
      return guarded(async () => {
        const item = await requireOutreachItem(pool, orgId, itemId);
        return { item, state: outreachStateOf(item, orgId) };
      });
    },

    // `decidedBy` (each decision's credential, its audit event's actor) is optional: a step scheduled before it was passed has none.
    async editOutreachRecord(
      orgId: string, itemId: string, changes: { subject?: string | null; body?: string; channel?: OutreachChannel }, decidedBy?: CredentialActor,
    ): Promise<OutreachStep> {
      return decisionStep({ orgId, id: itemId, decision: 'edit', actor: decidedBy ?? null },
        () => withTransaction(pool, (db) => editOutreachContent(db, orgId, itemId, changes, decidedBy)));
    },

    async approveOutreachRecord(orgId: string, itemId: string, version: number, userId: string, decidedBy?: CredentialActor): Promise<OutreachStep> {
      return decisionStep({ orgId, id: itemId, decision: 'approve', actor: decidedBy ?? personActor(userId), contentVersion: version },
        () => withTransaction(pool, (db) => markOutreachApproved(db, orgId, itemId, version, userId, decidedBy)));
    },

    async closeOutreachRecord(
      orgId: string, itemId: string, to: 'declined' | 'cancelled', userId: string, reason: string | null, decidedBy?: CredentialActor,
    ): Promise<OutreachStep> {
      return decisionStep({ orgId, id: itemId, decision: to === 'declined' ? 'decline' : 'cancel', actor: decidedBy ?? personActor(userId) },
        () => withTransaction(pool, (db) => closeOutreach(db, orgId, itemId, to, userId, reason, decidedBy)));
    },

    async recordSendError(orgId: string, itemId: string, error: { code: string; message: string }): Promise<OutreachStep> {
      return guarded(async () => {
        const item = await setSendError(orgId, itemId, error);
        return { item, state: outreachStateOf(item, orgId) };
      });
    },

    /** A person chose to send again an item whose earlier attempt may have been delivered (sendError needs_review): their approval's step. */
    async releaseOutreachForResend(orgId: string, itemId: string, userId: string, decidedBy?: CredentialActor): Promise<OutreachStep> {
      return decisionStep({ orgId, id: itemId, decision: 'approve', actor: decidedBy ?? personActor(userId) }, () => sender.releaseForResend(orgId, itemId, userId));
    },

    /**
     * One attempt to send an approved item, through its outbox row (activities/outbox.ts
     * says exactly what is guaranteed; modules/people/outreach-delivery.ts what an item allows). In short: the row and its usage record are
     * created once, so the message is counted once; each attempt re-checks approval and
     * consent and claims the row with a lease before calling the provider, so two
     * attempts are never inside the provider call together. This is not exactly-once
     * delivery: an HTTP provider is retried with the same Idempotency-Key and
     * de-duplicates; an SMTP attempt that may have reached the server without its
     * answer being recorded is not resent but left `needs_review` for a person.
     */
    async sendOutreach(orgId: string, itemId: string): Promise<SendOutcome> {
      return withHeartbeat(() => guarded(() => sender.send(orgId, itemId)));
    },
  };
}


export type OutreachActivities = ReturnType<typeof createOutreachActivities>;
