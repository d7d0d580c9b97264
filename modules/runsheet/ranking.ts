/**
 * Who may serve, and who is asked first: pure functions over facts gathered in one pass
 * (scheduling.ts), shared by runsheet_schedule_person (conflicts), autofill and the substitute search.
 */
export const CONFLICT_CODES = ['missing_clearance', 'blockout', 'already_serving', 'over_monthly_maximum', 'household_rule'] as const;
export type ConflictCode = (typeof CONFLICT_CODES)[number];

/** Conflicts no override can set aside: safeguarding clearance is a rule, not a preference. */
export const HARD_CONFLICTS: readonly ConflictCode[] = ['missing_clearance'];

export interface CandidateFacts {
  contactId: string;
  /** null when the position needs no clearance. */
  cleared: boolean | null;
  blockedOut: boolean;
  /** Other plans (or positions on this plan) they are serving at an overlapping time. */
  servingElsewhere: number;
  servedThisMonth: number;
  maxPerMonth: number | null;
  householdRule: 'together' | 'apart' | null;
  /** Household members serving this plan. */
  householdOnPlan: number;
  /** Household members serving another plan that day (and none on this one). */
  householdElsewhereThatDay: number;
  lastServedAt: Date | null;
  /**
   * Places they already hold on this plan, at any of its times (autofill's own picks included): a
   * plan's places go round its people before anyone is given a second time.
   */
  placesOnPlan?: number;
  /** Their household's other members, when they have a household rule (autofill weighs its own picks against it). */
  householdIds?: readonly string[];
}

export interface Conflict { code: ConflictCode; message: string }

export function conflictsOf(facts: CandidateFacts): Conflict[] {
  const out: Conflict[] = [];
  if (facts.cleared === false) out.push({ code: 'missing_clearance', message: 'The position needs a current safeguarding check, and they have none' });
  if (facts.blockedOut) out.push({ code: 'blockout', message: 'They are blocked out on this date' });
  if (facts.servingElsewhere > 0) out.push({ code: 'already_serving', message: `They are already serving at that time (${facts.servingElsewhere} other assignment(s))` });
  if (facts.maxPerMonth !== null && facts.servedThisMonth >= facts.maxPerMonth) {
    out.push({ code: 'over_monthly_maximum', message: `They asked to serve at most ${facts.maxPerMonth} time(s) a month and are down for ${facts.servedThisMonth}` });
  }
  if (facts.householdRule === 'apart' && facts.householdOnPlan > 0) out.push({ code: 'household_rule', message: 'They asked not to serve with their household, and a household member serves this plan' });
  if (facts.householdRule === 'together' && facts.householdOnPlan === 0 && facts.householdElsewhereThatDay > 0) {
    out.push({ code: 'household_rule', message: 'They asked to serve with their household, who serve another service that day' });
  }
  return out;
}

/**
 * Eligible candidates (no conflict at all), fewest places on this plan first (so one person serves a
 * second time only when nobody else is free), then least recently served (never served first of all),
 * then fewest times this month, then by id so equal candidates always come in the same order.
 */
export function rankCandidates(candidates: readonly CandidateFacts[]): CandidateFacts[] {
  return candidates.filter((facts) => conflictsOf(facts).length === 0).sort((a, b) => {
    const placesA = a.placesOnPlan ?? 0;
    const placesB = b.placesOnPlan ?? 0;
    if (placesA !== placesB) return placesA - placesB;
    const lastA = a.lastServedAt?.getTime() ?? -Infinity;
    const lastB = b.lastServedAt?.getTime() ?? -Infinity;
    if (lastA !== lastB) return lastA < lastB ? -1 : 1;
    if (a.servedThisMonth !== b.servedThisMonth) return a.servedThisMonth - b.servedThisMonth;
    return a.contactId < b.contactId ? -1 : a.contactId > b.contactId ? 1 : 0;
  });
}
