import { METERED_FEATURES, isMeteredFeature, type MeteredFeature } from '../core/billing';
import type { MeterDefinition } from '../modules/module';
import { StewardError } from '../core/errors';
import { queryOne, queryRows, type Queryable } from '../db/pool';
import { registeredModules } from '../modules/registry';

/** The declaration of a metered feature, from the module that owns it. */
function meterOf(feature: MeteredFeature): MeterDefinition | undefined {
  return registeredModules().flatMap((module) => module.meters ?? []).find((meter) => meter.feature === feature);
}

/**
 * Adds each declared allowance that plan_allowances lacks (a new module's features on every
 * plan); rows already there, including an operator's change, are left as they are.
 */
export async function seedPlanAllowances(db: Queryable, meters: readonly MeterDefinition[]): Promise<number> {
  let added = 0;
  for (const meter of meters) {
    for (const [plan, limit] of Object.entries(meter.allowances)) {
      const result = await db.query(`INSERT INTO plan_allowances (plan_code, feature, monthly_limit) VALUES ($1, $2, $3)
        ON CONFLICT (plan_code, feature) DO NOTHING`, [plan, meter.feature, limit]);
      added += result.rowCount ?? 0;
    }
  }
  return added;
}

export interface FeatureUsage {
  feature: MeteredFeature;
  used: number;
  limit: number | null;
  remaining: number | null;
  period: 'month' | 'standing';
}

/** The org's limit for a feature: its own override, else its plan's; null when the feature is not metered for it. */
export async function allowanceFor(db: Queryable, orgId: string, feature: MeteredFeature): Promise<number | null> {
  const row = await queryOne<{ monthly_limit: number }>(db, `
    SELECT COALESCE(o.monthly_limit, p.monthly_limit) AS monthly_limit
    FROM organisations org
    LEFT JOIN plan_allowances p ON p.plan_code = org.plan_code AND p.feature = $2
    LEFT JOIN org_allowance_overrides o ON o.org_id = org.id AND o.feature = $2
    WHERE org.id = $1`, [orgId, feature]);
  return row?.monthly_limit ?? null;
}

async function usedFor(db: Queryable, orgId: string, feature: MeteredFeature): Promise<number> {
  // A standing feature is counted by the module that owns its rows (contacts by people).
  const standingCount = meterOf(feature)?.standingCount;
  if (standingCount) return standingCount(db, orgId);
  const row = await queryOne<{ n: number }>(db, `
    SELECT COALESCE(sum(units), 0)::int AS n FROM usage_events
    WHERE org_id = $1 AND feature = $2 AND occurred_at >= date_trunc('month', now())`, [orgId, feature]);
  return row?.n ?? 0;
}

export async function usageFor(db: Queryable, orgId: string, feature: MeteredFeature): Promise<FeatureUsage> {
  const [used, limit] = await Promise.all([usedFor(db, orgId, feature), allowanceFor(db, orgId, feature)]);
  return {
    feature,
    used,
    limit,
    remaining: limit === null ? null : Math.max(0, limit - used),
    period: meterOf(feature)?.standingCount ? 'standing' : 'month',
  };
}

export async function usageSummary(db: Queryable, orgId: string): Promise<FeatureUsage[]> {
  const out: FeatureUsage[] = [];
  for (const feature of METERED_FEATURES) out.push(await usageFor(db, orgId, feature));
  return out;
}

/** The codes an allowance check refuses with: the plan's limit, a spend cap, a subscription that no longer allows the use. */
export const ALLOWANCE_REFUSALS: ReadonlySet<string> = new Set(['allowance_exceeded', 'spend_cap_reached', 'subscription_inactive']);

/**
 * Refuses, with `allowance_exceeded`, an operation that would take the org past its allowance;
 * then asks every module's `allowanceGuards` (billing's spend caps and subscription state), which
 * may refuse it too.
 */
export async function assertAllowance(
  db: Queryable, orgId: string, feature: MeteredFeature, units: number, context: { tool?: string; purpose?: string } = {},
): Promise<void> {
  const usage = await usageFor(db, orgId, feature);
  if (usage.limit !== null && usage.used + units > usage.limit) {
    throw new StewardError('allowance_exceeded', `The plan allows ${usage.limit} ${feature.replace(/_/g, ' ')}${usage.period === 'month' ? ' a month' : ''}; ${usage.used} used`, {
      hint: 'platform_usage shows usage against each allowance; upgrade the plan or free capacity first.',
      details: { feature, used: usage.used, limit: usage.limit, requested: units },
    });
  }
  for (const guard of registeredModules().flatMap((module) => module.allowanceGuards ?? [])) {
    await guard(db, { orgId, feature, units, used: usage.used, limit: usage.limit, ...context });
  }
}

/** Serialises allowance checks per org and feature for the rest of the transaction. */
export async function lockFeature(db: Queryable, orgId: string, feature: MeteredFeature): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${orgId}:${feature}`]);
}

/** Records metered usage once per idempotency key (the workflow id), however often it is retried. */
export async function recordUsage(
  db: Queryable,
  input: { orgId: string; feature: MeteredFeature; units: number; idempotencyKey: string; tool: string },
): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO usage_events (org_id, feature, units, idempotency_key, tool) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (idempotency_key, feature) DO NOTHING`,
    [input.orgId, input.feature, input.units, input.idempotencyKey, input.tool],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function countUsageEvents(db: Queryable, orgId: string, feature: MeteredFeature): Promise<number> {
  const rows = await queryRows<{ n: number }>(db, 'SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1 AND feature = $2', [orgId, feature]);
  return rows[0]?.n ?? 0;
}

/** The plan an organisation is on (null for an unknown org). */
export async function planOf(db: Queryable, orgId: string): Promise<string | null> {
  const row = await queryOne<{ plan_code: string }>(db, 'SELECT plan_code FROM organisations WHERE id = $1', [orgId]);
  return row?.plan_code ?? null;
}

/** Puts an organisation on a plan (billing applies a paid or approved change); its data is never touched. */
export async function setOrgPlan(db: Queryable, orgId: string, planCode: string): Promise<void> {
  await db.query('UPDATE organisations SET plan_code = $2 WHERE id = $1 AND plan_code IS DISTINCT FROM $2', [orgId, planCode]);
}

export interface PlanInfo { code: string; name: string; allowances: Partial<Record<MeteredFeature, number>> }

/** Every plan with its allowances per metered feature (a feature without a row is unmetered on it). */
export async function listPlanAllowances(db: Queryable): Promise<PlanInfo[]> {
  const plans = await queryRows<{ code: string; name: string }>(db, 'SELECT code, name FROM plans ORDER BY code');
  const rows = await queryRows<{ plan_code: string; feature: string; monthly_limit: number }>(db, 'SELECT plan_code, feature, monthly_limit FROM plan_allowances');
  return plans.map((plan) => ({
    code: plan.code, name: plan.name,
    allowances: Object.fromEntries(rows.filter((row) => row.plan_code === plan.code && isMeteredFeature(row.feature)).map((row) => [row.feature, row.monthly_limit])),
  }));
}
