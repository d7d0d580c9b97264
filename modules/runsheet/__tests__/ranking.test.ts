import { conflictsOf, rankCandidates, type CandidateFacts } from '../ranking';

const free = (contactId: string, extra: Partial<CandidateFacts> = {}): CandidateFacts => ({
  contactId, cleared: null, blockedOut: false, servingElsewhere: 0, servedThisMonth: 0, maxPerMonth: null, householdRule: null,
  householdOnPlan: 0, householdElsewhereThatDay: 0, lastServedAt: null, ...extra,
});

describe('who may serve, and who is asked first', () => {
  it('finds each rule\'s conflict, and none for someone free', () => {
    expect(conflictsOf(free('a'))).toEqual([]);
    expect(conflictsOf(free('a', { cleared: false })).map((c) => c.code)).toEqual(['missing_clearance']);
    expect(conflictsOf(free('a', { cleared: true }))).toEqual([]);
    expect(conflictsOf(free('a', { blockedOut: true })).map((c) => c.code)).toEqual(['blockout']);
    expect(conflictsOf(free('a', { servingElsewhere: 1 })).map((c) => c.code)).toEqual(['already_serving']);
    expect(conflictsOf(free('a', { maxPerMonth: 2, servedThisMonth: 2 })).map((c) => c.code)).toEqual(['over_monthly_maximum']);
    expect(conflictsOf(free('a', { maxPerMonth: 2, servedThisMonth: 1 }))).toEqual([]);
    expect(conflictsOf(free('a', { maxPerMonth: 0 })).map((c) => c.code)).toEqual(['over_monthly_maximum']);
    expect(conflictsOf(free('a', { householdRule: 'apart', householdOnPlan: 1 })).map((c) => c.code)).toEqual(['household_rule']);
    expect(conflictsOf(free('a', { householdRule: 'apart', householdElsewhereThatDay: 1 }))).toEqual([]);
    expect(conflictsOf(free('a', { householdRule: 'together', householdElsewhereThatDay: 1 })).map((c) => c.code)).toEqual(['household_rule']);
    expect(conflictsOf(free('a', { householdRule: 'together', householdElsewhereThatDay: 1, householdOnPlan: 1 }))).toEqual([]);
    expect(conflictsOf(free('a', { blockedOut: true, cleared: false, servingElsewhere: 2 })).map((c) => c.code)).toEqual(['missing_clearance', 'blockout', 'already_serving']);
  });

  it('ranks the eligible least recently served first, then fewest this month, then by id', () => {
    const ranked = rankCandidates([
      free('d', { lastServedAt: new Date('2026-11-01') }),
      free('c', { lastServedAt: new Date('2026-10-01'), servedThisMonth: 1 }),
      free('b', { lastServedAt: new Date('2026-10-01') }),
      free('e', { blockedOut: true }),
      free('z'),
      free('y'),
    ]);
    expect(ranked.map((c) => c.contactId)).toEqual(['y', 'z', 'b', 'c', 'd']);
    expect(rankCandidates([])).toEqual([]);
  });
});
