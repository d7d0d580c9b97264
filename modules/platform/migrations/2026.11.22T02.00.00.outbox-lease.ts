import type { Migration } from '../../../db/migrate';

/**
 * Outbox leases. A send claims its outbox row before calling the provider:
 * status 'sending' with claimed_until (the lease, longer than the provider
 * call may take) and a claim_token naming the attempt. Only a row that is
 * 'pending', 'failed' or 'sending' with an expired lease can be claimed, so two
 * workers are never inside the provider call for one message at the same time.
 *
 * 'needs_review': an earlier attempt may have reached a provider that cannot
 * de-duplicate (SMTP) and nobody recorded the answer, so the message is not
 * resent automatically; review_reason says why, and reviewed_by_user_id /
 * reviewed_at record the person who chose to send it again.
 * `attempts` now counts claims, i.e. provider calls started.
 */
export const outboxLease: Migration = {
  name: '2026.11.22T02.00.00.outbox-lease',
  up: `
ALTER TABLE outbox_messages DROP CONSTRAINT outbox_messages_status_check;
ALTER TABLE outbox_messages ADD CONSTRAINT outbox_messages_status_check
  CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'needs_review'));
ALTER TABLE outbox_messages
  ADD COLUMN claim_token text,
  ADD COLUMN claimed_at timestamptz,
  ADD COLUMN claimed_until timestamptz,
  ADD COLUMN review_reason text,
  ADD COLUMN reviewed_by_user_id uuid,
  ADD COLUMN reviewed_at timestamptz;
COMMENT ON TABLE outbox_messages IS
  'One row per outreach item. Sends claim the row with a lease; usage is counted once when the row is created. Delivery is at most once per claim; SMTP attempts that may have been accepted wait in needs_review for a person.';
`,
  down: `
UPDATE outbox_messages SET status = 'pending' WHERE status NOT IN ('pending', 'sent');
ALTER TABLE outbox_messages
  DROP COLUMN claim_token,
  DROP COLUMN claimed_at,
  DROP COLUMN claimed_until,
  DROP COLUMN review_reason,
  DROP COLUMN reviewed_by_user_id,
  DROP COLUMN reviewed_at;
ALTER TABLE outbox_messages DROP CONSTRAINT outbox_messages_status_check;
ALTER TABLE outbox_messages ADD CONSTRAINT outbox_messages_status_check CHECK (status IN ('pending', 'sent'));
COMMENT ON TABLE outbox_messages IS NULL;
`,
};
