import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound, type RowOf } from '../kit';
import type { GivingFund } from './models/funds';

/** The fund a gift goes to when nobody names one; created the first time it is needed. */
export const DEFAULT_FUND_NAME = 'General Fund';

export const fundSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  code: z.string().nullable(),
  description: z.string().nullable(),
  giftAidEligible: z.boolean(),
  status: z.enum(['active', 'archived']),
  isDefault: z.boolean(),
  createdAt: z.string(),
}).strict();
export type FundView = z.infer<typeof fundSchema>;

type FundRow = Pick<RowOf<GivingFund>, 'id' | 'name' | 'code' | 'description' | 'gift_aid_eligible' | 'status' | 'is_default' | 'created_at'>;

const FUND_COLUMNS = 'id, name, code, description, gift_aid_eligible, status, is_default, created_at';

function fundView(row: FundRow): FundView {
  return {
    id: row.id, name: row.name, code: row.code, description: row.description, giftAidEligible: row.gift_aid_eligible,
    status: row.status, isDefault: row.is_default, createdAt: row.created_at.toISOString(),
  };
}

export async function listFunds(db: Queryable, orgId: string, status: 'active' | 'archived' | 'all'): Promise<FundView[]> {
  const rows = await queryRows<FundRow>(db, `SELECT ${FUND_COLUMNS} FROM giving_funds
    WHERE org_id = $1 AND ($2 = 'all' OR status = $2) ORDER BY is_default DESC, lower(name)`, [orgId, status]);
  return rows.map(fundView);
}

/**
 * One fund of the organisation; another organisation's id is missing. With `active`, an archived
 * fund is refused (no new gifts, pledges or recurring gifts go to it) naming `field`.
 */
export async function requireFund(db: Queryable, orgId: string, fundId: string, options: { active?: boolean; field?: string; lock?: boolean } = {}): Promise<FundView> {
  const row = await queryOne<FundRow>(db, `SELECT ${FUND_COLUMNS} FROM giving_funds WHERE org_id = $1 AND id = $2${options.lock ? ' FOR UPDATE' : ''}`, [orgId, fundId]);
  if (!row) throw notFound('Fund', fundId, 'giving_list_funds lists the funds.');
  if (options.active && row.status !== 'active') {
    throw new StewardError('validation_failed', `Fund "${row.name}" is archived and takes no new gifts`, {
      hint: 'Choose an active fund (giving_list_funds), or restore this one with giving_update_fund { status: "active" }.',
      issues: [{ path: options.field ?? 'fundId', message: 'fund is archived' }],
    });
  }
  return fundView(row);
}

/**
 * The organisation's default fund, created as "General Fund" the first time a gift names none.
 * Concurrent first gifts meet on the unique default index: one inserts, the others read it.
 */
export async function defaultFund(db: Queryable, orgId: string): Promise<FundView> {
  const existing = await queryOne<FundRow>(db, `SELECT ${FUND_COLUMNS} FROM giving_funds WHERE org_id = $1 AND is_default`, [orgId]);
  if (existing) return fundView(existing);
  await db.query(`INSERT INTO giving_funds (id, org_id, name, is_default) VALUES ($1, $2, $3, true)
    ON CONFLICT DO NOTHING`, [randomUUID(), orgId, DEFAULT_FUND_NAME]);
  const row = await queryOne<FundRow>(db, `SELECT ${FUND_COLUMNS} FROM giving_funds WHERE org_id = $1 AND is_default`, [orgId]);
  if (!row) {
    // A fund already called "General Fund" that is not the default: the organisation chooses one.
    throw new StewardError('validation_failed', 'The organisation has no default fund', {
      hint: 'Name a fund (fundId or designations), or mark one as the default with giving_update_fund { isDefault: true }.',
      issues: [{ path: 'fundId', message: 'no default fund' }],
    });
  }
  return fundView(row);
}

export interface FundWrite {
  name?: string;
  code?: string | null;
  description?: string | null;
  giftAidEligible?: boolean;
  isDefault?: boolean;
}

/** A unique-index violation on a fund's name or code, said plainly. */
function fundConflict(error: unknown, input: FundWrite): never {
  const constraint = (error as { constraint?: string }).constraint;
  if (constraint === 'giving_funds_name_key') {
    throw new StewardError('conflict', `A fund named "${input.name}" already exists`, { hint: 'giving_list_funds shows it; names ignore case.' });
  }
  if (constraint === 'giving_funds_code_key') {
    throw new StewardError('conflict', `A fund with code "${input.code}" already exists`, { hint: 'Choose another code.' });
  }
  throw error;
}

/** Making a fund the default unmarks the previous one in the same transaction (the unique index allows one). */
async function clearDefault(db: Queryable, orgId: string, exceptId: string): Promise<void> {
  await db.query('UPDATE giving_funds SET is_default = false, updated_at = now() WHERE org_id = $1 AND is_default AND id <> $2', [orgId, exceptId]);
}

export async function createFund(db: Queryable, orgId: string, input: FundWrite & { name: string }): Promise<FundView> {
  const id = randomUUID();
  if (input.isDefault) await clearDefault(db, orgId, id);
  try {
    await db.query('SAVEPOINT giving_fund_write');
    await db.query(`INSERT INTO giving_funds (id, org_id, name, code, description, gift_aid_eligible, is_default)
      VALUES ($1, $2, $3, $4, $5, $6, $7)`, [id, orgId, input.name, input.code ?? null, input.description ?? null, input.giftAidEligible ?? true, input.isDefault ?? false]);
    await db.query('RELEASE SAVEPOINT giving_fund_write');
  } catch (error) {
    await db.query('ROLLBACK TO SAVEPOINT giving_fund_write');
    fundConflict(error, input);
  }
  return requireFund(db, orgId, id);
}

export async function updateFund(db: Queryable, orgId: string, fundId: string, input: FundWrite & { status?: 'active' }): Promise<FundView> {
  const fund = await requireFund(db, orgId, fundId, { lock: true });
  if (input.isDefault === false && fund.isDefault) {
    throw new StewardError('validation_failed', 'The default fund stays the default until another fund is made the default', {
      hint: 'Mark the new default with giving_update_fund { fundId: <other>, isDefault: true }.',
      issues: [{ path: 'isDefault', message: 'cannot unset the default directly' }],
    });
  }
  if (input.isDefault && fund.status === 'archived' && input.status !== 'active') {
    throw new StewardError('validation_failed', 'An archived fund cannot be the default', { issues: [{ path: 'isDefault', message: 'fund is archived' }] });
  }
  if (input.isDefault) await clearDefault(db, orgId, fundId);
  try {
    await db.query('SAVEPOINT giving_fund_write');
    await db.query(`UPDATE giving_funds SET
        name = COALESCE($3, name),
        code = CASE WHEN $4::boolean THEN $5 ELSE code END,
        description = CASE WHEN $6::boolean THEN $7 ELSE description END,
        gift_aid_eligible = COALESCE($8, gift_aid_eligible),
        is_default = COALESCE($9, is_default),
        status = COALESCE($10, status),
        updated_at = now()
      WHERE org_id = $1 AND id = $2`, [
      orgId, fundId, input.name ?? null, input.code !== undefined, input.code ?? null, input.description !== undefined, input.description ?? null,
      input.giftAidEligible ?? null, input.isDefault ?? null, input.status ?? null,
    ]);
    await db.query('RELEASE SAVEPOINT giving_fund_write');
  } catch (error) {
    await db.query('ROLLBACK TO SAVEPOINT giving_fund_write');
    fundConflict(error, input);
  }
  return requireFund(db, orgId, fundId);
}

/**
 * Archives a fund: it keeps its history and totals but takes no new gifts. Refused for the default
 * fund, and while anything still to come would land in it: gifts in uncommitted batches, open
 * pledges of its campaigns, and active or paused recurring gifts.
 */
export async function archiveFund(db: Queryable, orgId: string, fundId: string): Promise<FundView> {
  const fund = await requireFund(db, orgId, fundId, { lock: true });
  if (fund.status === 'archived') return fund;
  if (fund.isDefault) {
    throw new StewardError('conflict', `"${fund.name}" is the default fund and cannot be archived`, {
      hint: 'Make another fund the default first (giving_update_fund { isDefault: true }).',
    });
  }
  const uses = await queryOne<{ uncommitted: number; open_pledges: number; recurring: number }>(db, `SELECT
      (SELECT count(*)::int FROM giving_designations g JOIN giving_donations d ON d.id = g.donation_id
         JOIN giving_batches b ON b.id = d.batch_id WHERE g.org_id = $1 AND g.fund_id = $2 AND b.status = 'in_progress') AS uncommitted,
      (SELECT count(*)::int FROM giving_pledges p JOIN giving_pledge_campaigns c ON c.id = p.campaign_id
         WHERE p.org_id = $1 AND c.fund_id = $2 AND p.status = 'open') AS open_pledges,
      (SELECT count(*)::int FROM giving_recurring_gifts r WHERE r.org_id = $1 AND r.fund_id = $2 AND r.status <> 'cancelled') AS recurring`,
  [orgId, fundId]);
  const reasons = [
    uses!.uncommitted ? `${uses!.uncommitted} gift(s) in uncommitted batches` : '',
    uses!.open_pledges ? `${uses!.open_pledges} open pledge(s)` : '',
    uses!.recurring ? `${uses!.recurring} active or paused recurring gift(s)` : '',
  ].filter(Boolean);
  if (reasons.length > 0) {
    throw new StewardError('conflict', `Fund "${fund.name}" is still in use: ${reasons.join(', ')}`, {
      hint: 'Commit or move the uncommitted gifts, close or cancel the pledges and recurring gifts, then archive.',
      details: { uncommittedDonations: uses!.uncommitted, openPledges: uses!.open_pledges, recurringGifts: uses!.recurring },
    });
  }
  await db.query(`UPDATE giving_funds SET status = 'archived', updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, fundId]);
  return requireFund(db, orgId, fundId);
}
