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
  /**
   * Household members' places at a time overlapping the one they would serve, on this plan or any
   * other (a place on a whole plan is at every one of its times, as for "already serving").
   */
  householdAtOnce: number;
  /** Household members' places that day at other times: this plan's other times, or other plans. */
  householdOtherTimesThatDay: number;
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
  // Household rules are about serving at once (the 9:00 and the 11:00 of one plan are apart; two plans at 9:00 are together).
  if (facts.householdRule === 'apart' && facts.householdAtOnce > 0) {
    out.push({ code: 'household_rule', message: 'They asked not to serve at the same time as their household, and a household member serves at that time' });
  }
  if (facts.householdRule === 'together' && facts.householdAtOnce === 0 && facts.householdOtherTimesThatDay > 0) {
    out.push({ code: 'household_rule', message: 'They asked to serve at the same time as their household, who serve at another time that day' });
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

// ---------------------------------------------------------------- one run's picks (autofill)

/** A place a run has chosen but not yet written: who, and at which time of the plan (null: the whole plan). */
export interface RunPick { contactId: string; planTimeId: string | null }

/** The plan's times by id, to tell which of its places are at once. */
export type TimeWindows = ReadonlyMap<string, { startsAt: Date; endsAt: Date }>;

/** Whether two places on one plan are at once: a place on the whole plan is at every one of its times, as gatherFacts has it. */
export function sameTime(times: TimeWindows, a: string | null, b: string | null): boolean {
  if (a === null || b === null || a === b) return true;
  const x = times.get(a);
  const y = times.get(b);
  return !x || !y || (x.startsAt < y.endsAt && y.startsAt < x.endsAt);
}

/**
 * A candidate's facts for a place at planTimeId with a run's earlier picks on the same plan added
 * (they are not in the database yet): their own pick at an overlapping time makes them already
 * serving, every pick of theirs is a place on the plan, and a household member's pick counts toward
 * their household rule at once or at another time that day, by whether it overlaps. The monthly
 * maximum counts a plan once, however many of its times they serve, so picks on this plan never add to it.
 */
export function withRunPicks(facts: CandidateFacts, picks: readonly RunPick[], planTimeId: string | null, times: TimeWindows): CandidateFacts {
  const mine = picks.filter((pick) => pick.contactId === facts.contactId);
  const household = new Set(facts.householdIds ?? []);
  const theirs = picks.filter((pick) => household.has(pick.contactId));
  const atOnce = theirs.filter((pick) => sameTime(times, pick.planTimeId, planTimeId)).length;
  return {
    ...facts,
    servingElsewhere: facts.servingElsewhere + mine.filter((pick) => sameTime(times, pick.planTimeId, planTimeId)).length,
    placesOnPlan: (facts.placesOnPlan ?? 0) + mine.length,
    householdAtOnce: facts.householdAtOnce + atOnce,
    householdOtherTimesThatDay: facts.householdOtherTimesThatDay + theirs.length - atOnce,
  };
}

/**
 * Who takes `open` places at planTimeId, one place at a time: the best ranked candidate with the
 * run's picks so far (earlier ones and this need's own) taken into account, until nobody eligible is left.
 */
export function choosePlaces(candidates: readonly CandidateFacts[], open: number, earlier: readonly RunPick[], planTimeId: string | null, times: TimeWindows): string[] {
  const chosen: string[] = [];
  const picks = [...earlier];
  while (chosen.length < open) {
    const [best] = rankCandidates(candidates.filter((candidate) => !chosen.includes(candidate.contactId)).map((candidate) => withRunPicks(candidate, picks, planTimeId, times)));
    if (!best) break;
    chosen.push(best.contactId);
    picks.push({ contactId: best.contactId, planTimeId });
  }
  return chosen;
}
