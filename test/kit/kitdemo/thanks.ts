import { randomUUID } from 'node:crypto';
import type { Migration } from '../../../db/migrate';
import { queryOne, type Queryable } from '../../../db/pool';
import { tenantPolicies } from '../../../db/row-level-security';
import { notFound } from '../../../modules/kit';
import { defineOutboxSource, type OutboxDraft } from '../../../modules/outbox-source';

/**
 * A thank-you email after a visit: a record of the module's own that leaves through the shared
 * outbox (leased, counted once, never handed to the mail server twice by a retry), and that a
 * signed webhook marks read.
 */
export const THANKS_SOURCE_KIND = 'kitdemo.thanks';

export const kitdemoThanksMigration: Migration = {
  name: '2026.11.27T20.00.00.kitdemo-thanks',
  up: `
CREATE TABLE kitdemo_thanks (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  visit_id uuid NOT NULL REFERENCES kitdemo_visits(id) ON DELETE CASCADE,
  email text NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'refused')),
  problem jsonb,
  sent_at timestamptz,
  read_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
${tenantPolicies(['kitdemo_thanks']).up}`,
  down: `${tenantPolicies(['kitdemo_thanks']).down}
DROP TABLE kitdemo_thanks;`,
};

export interface Thanks {
  id: string;
  visitId: string;
  email: string;
  status: 'queued' | 'sent' | 'refused';
  readAt: string | null;
}

interface ThanksRow {
  id: string;
  visit_id: string;
  email: string;
  status: Thanks['status'];
  read_at: Date | null;
}

const thanksOf = (row: ThanksRow): Thanks => ({
  id: row.id, visitId: row.visit_id, email: row.email, status: row.status, readAt: row.read_at?.toISOString() ?? null,
});

export async function queueThanks(db: Queryable, orgId: string, visitId: string, email: string): Promise<Thanks> {
  const visit = await queryOne(db, 'SELECT 1 FROM kitdemo_visits WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [orgId, visitId]);
  if (!visit) throw notFound('Visit', visitId);
  const row = await queryOne<ThanksRow>(db, `INSERT INTO kitdemo_thanks (id, org_id, visit_id, email) VALUES ($1, $2, $3, $4)
    RETURNING id, visit_id, email, status, read_at`, [randomUUID(), orgId, visitId, email]);
  return thanksOf(row!);
}

export async function getThanks(db: Queryable, orgId: string, thanksId: string): Promise<Thanks> {
  const row = await queryOne<ThanksRow>(db, 'SELECT id, visit_id, email, status, read_at FROM kitdemo_thanks WHERE org_id = $1 AND id = $2', [orgId, thanksId]);
  if (!row) throw notFound('Thank-you', thanksId);
  return thanksOf(row);
}

/** Marks a sent thank-you read; false when there is none such, or it was not sent (a receipt for nothing changes nothing). */
export async function markThanksRead(db: Queryable, orgId: string, thanksId: string): Promise<boolean> {
  const updated = await db.query("UPDATE kitdemo_thanks SET read_at = COALESCE(read_at, now()) WHERE org_id = $1 AND id = $2 AND status = 'sent'", [orgId, thanksId]);
  return (updated.rowCount ?? 0) > 0;
}

interface ThanksDraft extends OutboxDraft {
  to: string;
}

export const thanksDelivery = defineOutboxSource<ThanksDraft>({
  kind: THANKS_SOURCE_KIND,
  keyOf: (thanksId) => `kitdemo-thanks-${thanksId}`,
  usageTool: 'kitdemo_send_thanks',
  meterFor: () => 'email_sends',

  async lock(db, orgId, thanksId) {
    const row = await queryOne<{ email: string; status: string }>(db, 'SELECT email, status FROM kitdemo_thanks WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, thanksId]);
    if (!row) throw notFound('Thank-you', thanksId);
    if (row.status === 'sent') return { kind: 'delivered' };
    if (row.status !== 'queued') return { kind: 'not_ready' };
    return { kind: 'ready', draft: { channel: 'email', to: row.email, subject: 'Thank you for your visit', body: 'Thank you for having us; it was good to see you.' } };
  },

  // The demo writes to the address it was given; a real module checks consent and suppression here.
  async recipient(_db, _orgId, draft) {
    return { to: draft.to };
  },

  async delivered(db, orgId, thanksId) {
    await db.query("UPDATE kitdemo_thanks SET status = 'sent', sent_at = COALESCE(sent_at, now()), problem = NULL WHERE org_id = $1 AND id = $2", [orgId, thanksId]);
  },

  async undelivered(db, orgId, thanksId, problem) {
    await db.query("UPDATE kitdemo_thanks SET status = 'refused', problem = $3 WHERE org_id = $1 AND id = $2", [orgId, thanksId, JSON.stringify(problem)]);
  },

  async released(db, orgId, thanksId) {
    await db.query("UPDATE kitdemo_thanks SET status = 'queued', problem = NULL WHERE org_id = $1 AND id = $2", [orgId, thanksId]);
  },
});
