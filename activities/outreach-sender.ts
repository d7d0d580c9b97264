import { ApplicationFailure } from '@temporalio/common';
import type { Pool } from '../db/pool';
import { OUTREACH_SOURCE_KIND } from '../modules/people/outreach-delivery';
import { requireOutreachItem, type OutreachItem } from '../modules/people/outreach';
import { createOutbox, type OutboxDeps } from './outbox';

/**
 * Sending an approved outreach item: the generic outbox (activities/outbox.ts,
 * which says what is guaranteed) with the people module's outreach-delivery
 * source, answering with the item as it stands afterwards, which is what the
 * outreach workflow keeps.
 */

export type SendOutcome =
  | { status: 'sent'; item: OutreachItem }
  | { status: 'refused'; item: OutreachItem; error: { code: string; message: string } }
  | { status: 'needs_review'; item: OutreachItem }
  | { status: 'not_approved'; item: OutreachItem };

export type OutreachSenderDeps = Omit<OutboxDeps, 'sources'> & { pool: Pool };

export function createOutreachSender(deps: OutreachSenderDeps) {
  const { pool } = deps;
  const outbox = createOutbox(deps);
  const itemOf = (orgId: string, itemId: string) => requireOutreachItem(pool, orgId, itemId);

  return {
    /** One send attempt (see Outbox.send for what it throws). */
    async send(orgId: string, itemId: string): Promise<SendOutcome> {
      const outcome = await outbox.send(OUTREACH_SOURCE_KIND, orgId, itemId);
      const item = await itemOf(orgId, itemId);
      switch (outcome.status) {
        case 'refused':
          return { status: 'refused', item, error: outcome.error };
        case 'not_ready':
          return { status: 'not_approved', item };
        case 'deferred':
          // Quiet hours: nothing was claimed or counted; the activity is retried once they end.
          throw ApplicationFailure.create({
            type: 'send_deferred', message: `Quiet hours: sending resumes at ${outcome.until}`,
            nextRetryDelay: Math.max(1000, Date.parse(outcome.until) - Date.now()),
          });
        default:
          return { status: outcome.status, item };
      }
    },

    /** A person chose to send an item in needs_review again: its row becomes claimable once more, recording who decided. */
    async releaseForResend(orgId: string, itemId: string, userId: string): Promise<OutreachItem> {
      await outbox.release(OUTREACH_SOURCE_KIND, orgId, itemId, userId);
      return itemOf(orgId, itemId);
    },
  };
}

export type OutreachSender = ReturnType<typeof createOutreachSender>;
