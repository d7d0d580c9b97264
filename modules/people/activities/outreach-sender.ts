import { ApplicationFailure } from '@temporalio/common';
import type { Pool } from '../../../db/pool';
import type { OutboxPort } from '../../outbox-source';
import { OUTREACH_SOURCE_KIND } from '../outreach-delivery';
import { requireOutreachItem, type OutreachItem } from '../outreach';

/**
 * Sending an approved outreach item: the shared outbox (activities/outbox.ts,
 * which says what is guaranteed) with the people module's outreach-delivery
 * source, answering with the item as it stands afterwards, which is what the
 * outreach workflow keeps.
 */

export type SendOutcome =
  | { status: 'sent'; item: OutreachItem }
  | { status: 'refused'; item: OutreachItem; error: { code: string; message: string } }
  | { status: 'needs_review'; item: OutreachItem }
  | { status: 'not_approved'; item: OutreachItem };

export interface OutreachSenderDeps {
  pool: Pool;
  outbox: OutboxPort;
}

export function createOutreachSender(deps: OutreachSenderDeps) {
  const { pool, outbox } = deps;
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
