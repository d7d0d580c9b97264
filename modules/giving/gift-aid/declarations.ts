import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { listPage, notFound, type RowOf } from '../../kit';
import { requireContact } from '../../people/api';
import type { GivingGiftAidDeclaration } from '../models/gift-aid-declarations';
import { checkDeclaration, type DeclarationFacts, type DeclarationInput, type DeclarationMethod, type DeclarationScope } from './rules';
import { todayUtc } from '../../metrics';

/** A declaration as `SELECT *` reads it, typed by its model. */
type DeclarationRow = RowOf<GivingGiftAidDeclaration>;

export type DeclarationState = 'active' | 'awaiting_confirmation' | 'cancelled' | 'ended';

export interface DeclarationView {
  id: string;
  contactId: string | null;
  scope: DeclarationScope;
  method: DeclarationMethod;
  madeOn: string;
  startOn: string;
  endOn: string | null;
  confirmationSentOn: string | null;
  donationId: string | null;
  note: string | null;
  state: DeclarationState;
  cancelledOn: string | null;
  cancelReason: string | null;
  createdAt: string;
}


function stateOf(row: DeclarationRow, today: string): DeclarationState {
  if (row.cancelled_on !== null && row.cancelled_on <= today) return 'cancelled';
  if (row.end_on !== null && row.end_on < today) return 'ended';
  if (row.method === 'oral' && row.confirmation_sent_on === null) return 'awaiting_confirmation';
  return 'active';
}

function toView(row: DeclarationRow, today = todayUtc()): DeclarationView {
  return {
    id: row.id, contactId: row.contact_id, scope: row.scope, method: row.method, madeOn: row.made_on, startOn: row.start_on,
    endOn: row.end_on, confirmationSentOn: row.confirmation_sent_on, donationId: row.donation_id, note: row.note,
    state: stateOf(row, today), cancelledOn: row.cancelled_on, cancelReason: row.cancel_reason, createdAt: row.created_at.toISOString(),
  };
}

export function toFacts(row: Pick<DeclarationRow, 'id' | 'scope' | 'method' | 'made_on' | 'start_on' | 'end_on' | 'confirmation_sent_on' | 'cancelled_on' | 'donation_id'>): DeclarationFacts {
  return {
    id: row.id, scope: row.scope, method: row.method, madeOn: row.made_on, startOn: row.start_on, endOn: row.end_on,
    confirmationSentOn: row.confirmation_sent_on, cancelledOn: row.cancelled_on, donationId: row.donation_id,
  };
}

function refuse(problems: Array<{ path: string; message: string }>, hint?: string): never {
  throw new StewardError('validation_failed', `The declaration is not valid: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`, {
    issues: problems, ...(hint ? { hint } : {}),
  });
}

/** A single-gift declaration names a committed gift of the same giver; another organisation's gift is not found. */
async function checkSingleGift(db: Queryable, orgId: string, contactId: string, donationId: string): Promise<void> {
  const gift = await queryOne<{ contact_id: string | null }>(db, 'SELECT contact_id FROM giving_donations WHERE org_id = $1 AND id = $2', [orgId, donationId]);
  if (!gift) throw notFound('Donation', donationId);
  if (gift.contact_id !== contactId) refuse([{ path: 'donationId', message: 'is not a gift of this giver' }]);
}

export async function recordDeclaration(
  db: Queryable, orgId: string, userId: string | null, input: DeclarationInput & { contactId: string; note?: string }, today = todayUtc(),
): Promise<DeclarationView> {
  await requireContact(db, orgId, input.contactId);
  const { startOn, problems } = checkDeclaration(input, today);
  if (problems.length > 0) {
    refuse(problems, 'An enduring declaration may reach back 4 years from the day it was made; an oral one is confirmed in writing (confirmationSentOn).');
  }
  if (input.donationId) await checkSingleGift(db, orgId, input.contactId, input.donationId);
  const row = await queryOne<DeclarationRow>(db, `INSERT INTO giving_gift_aid_declarations
    (id, org_id, contact_id, scope, method, made_on, start_on, end_on, confirmation_sent_on, donation_id, note, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`, [
    randomUUID(), orgId, input.contactId, input.scope, input.method, input.madeOn, startOn, input.endOn ?? null,
    input.confirmationSentOn ?? null, input.donationId ?? null, input.note ?? null, userId,
  ]);
  return toView(row!, today);
}

async function lockDeclaration(db: Queryable, orgId: string, id: string): Promise<DeclarationRow> {
  const row = await queryOne<DeclarationRow>(db, 'SELECT * FROM giving_gift_aid_declarations WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
  if (!row) throw notFound('Gift Aid declaration', id, 'giving_list_gift_aid_declarations lists them.');
  return row;
}

/**
 * Cancels a declaration from a day on (today unless given): gifts from that day are no longer
 * covered; earlier gifts stay claimable and lines already claimed are untouched.
 */
export async function cancelDeclaration(
  db: Queryable, orgId: string, id: string, options: { cancelledOn?: string; reason: string }, today = todayUtc(),
): Promise<DeclarationView> {
  const row = await lockDeclaration(db, orgId, id);
  if (row.cancelled_at) {
    throw new StewardError('conflict', `The declaration was already cancelled from ${row.cancelled_on}`, { details: { declarationId: id, cancelledOn: row.cancelled_on } });
  }
  const cancelledOn = options.cancelledOn ?? today;
  if (cancelledOn < row.made_on) refuse([{ path: 'cancelledOn', message: `must not be before the declaration was made (${row.made_on})` }]);
  const updated = await queryOne<DeclarationRow>(db, `UPDATE giving_gift_aid_declarations
    SET cancelled_at = now(), cancelled_on = $3, cancel_reason = $4, updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *`,
  [orgId, id, cancelledOn, options.reason]);
  return toView(updated!, today);
}

/** Records that the written record of an oral declaration was sent: from then on it counts. */
export async function confirmOralDeclaration(db: Queryable, orgId: string, id: string, sentOn: string, today = todayUtc()): Promise<DeclarationView> {
  const row = await lockDeclaration(db, orgId, id);
  if (row.method !== 'oral') refuse([{ path: 'declarationId', message: 'only an oral declaration is confirmed in writing' }]);
  if (row.confirmation_sent_on !== null) {
    throw new StewardError('conflict', `The written confirmation was already recorded as sent on ${row.confirmation_sent_on}`, { details: { declarationId: id } });
  }
  if (sentOn < row.made_on || sentOn > today) refuse([{ path: 'sentOn', message: `must be between ${row.made_on} and today` }]);
  const updated = await queryOne<DeclarationRow>(db, `UPDATE giving_gift_aid_declarations SET confirmation_sent_on = $3, updated_at = now()
    WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, id, sentOn]);
  return toView(updated!, today);
}

export async function listDeclarations(
  db: Queryable, orgId: string, options: { limit: number; cursor?: string; contactId?: string },
): Promise<{ declarations: DeclarationView[]; nextCursor: string | null }> {
  if (options.contactId) await requireContact(db, orgId, options.contactId);
  const { rows, nextCursor } = await listPage<DeclarationRow>(db, {
    table: 'giving_gift_aid_declarations', orgId, limit: options.limit, cursor: options.cursor, includeDeleted: true,
    ...(options.contactId ? { where: 'contact_id = $4', values: [options.contactId] } : {}),
  });
  const today = todayUtc();
  return { declarations: rows.map((row) => toView(row, today)), nextCursor };
}

/** Every declaration of these givers, as the rules read them, keyed by contact. */
export async function declarationsByContact(db: Queryable, orgId: string, contactIds: readonly string[]): Promise<Map<string, DeclarationFacts[]>> {
  const rows = await queryRows<DeclarationRow>(db, 'SELECT * FROM giving_gift_aid_declarations WHERE org_id = $1 AND contact_id = ANY($2::uuid[])', [orgId, contactIds]);
  const byContact = new Map<string, DeclarationFacts[]>();
  for (const row of rows) {
    const list = byContact.get(row.contact_id!) ?? [];
    list.push(toFacts(row));
    byContact.set(row.contact_id!, list);
  }
  return byContact;
}
