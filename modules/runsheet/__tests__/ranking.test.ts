import { choosePlaces, conflictsOf, rankCandidates, withRunPicks, type CandidateFacts, type TimeWindows } from '../ranking';

const free = (contactId: string, extra: Partial<CandidateFacts> = {}): CandidateFacts => ({
  contactId, cleared: null, blockedOut: false, servingElsewhere: 0, servedThisMonth: 0, maxPerMonth: null, householdRule: null,
  householdAtOnce: 0, householdOtherTimesThatDay: 0, lastServedAt: null, ...extra,
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
    expect(conflictsOf(free('a', { householdRule: 'apart', householdAtOnce: 1 })).map((c) => c.code)).toEqual(['household_rule']);
    expect(conflictsOf(free('a', { householdRule: 'apart', householdOtherTimesThatDay: 1 }))).toEqual([]);
    expect(conflictsOf(free('a', { householdRule: 'together', householdOtherTimesThatDay: 1 })).map((c) => c.code)).toEqual(['household_rule']);
    expect(conflictsOf(free('a', { householdRule: 'together', householdOtherTimesThatDay: 1, householdAtOnce: 1 }))).toEqual([]);
    // Nobody in the household serving that day leaves "together" nothing to ask.
    expect(conflictsOf(free('a', { householdRule: 'together' }))).toEqual([]);
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

describe('household rules are per service time', () => {
  // A plan with a 9:00 and an 11:00 (an hour each), and a 10:30 that overlaps the 11:00.
  const day = '2026-12-06';
  const times: TimeWindows = new Map([
    ['nine', { startsAt: new Date(`${day}T09:00:00Z`), endsAt: new Date(`${day}T10:00:00Z`) }],
    ['eleven', { startsAt: new Date(`${day}T11:00:00Z`), endsAt: new Date(`${day}T12:00:00Z`) }],
    ['half-ten', { startsAt: new Date(`${day}T10:30:00Z`), endsAt: new Date(`${day}T11:30:00Z`) }],
  ]);
  const hal = (householdRule: 'apart' | 'together') => free('hal', { householdRule, householdIds: ['hank'] });
  const hankAtNine = [{ contactId: 'hank', planTimeId: 'nine' }];
  const codes = (facts: CandidateFacts) => conflictsOf(facts).map((c) => c.code);

  it('apart: a household member at the same time is a conflict, at another time of the plan is not', () => {
    expect(codes(withRunPicks(hal('apart'), hankAtNine, 'nine', times))).toEqual(['household_rule']);
    expect(codes(withRunPicks(hal('apart'), hankAtNine, 'eleven', times))).toEqual([]);
    // Overlapping times are the same time; a place on the whole plan is at every time of it.
    expect(codes(withRunPicks(hal('apart'), [{ contactId: 'hank', planTimeId: 'eleven' }], 'half-ten', times))).toEqual(['household_rule']);
    expect(codes(withRunPicks(hal('apart'), [{ contactId: 'hank', planTimeId: null }], 'eleven', times))).toEqual(['household_rule']);
    expect(codes(withRunPicks(hal('apart'), hankAtNine, null, times))).toEqual(['household_rule']);
    // What the database already holds is counted the same way.
    expect(codes(free('hal', { householdRule: 'apart', householdOtherTimesThatDay: 2 }))).toEqual([]);
  });

  it('together: a household member at another time of the plan is a conflict, at the same time it is satisfied', () => {
    expect(codes(withRunPicks(hal('together'), hankAtNine, 'eleven', times))).toEqual(['household_rule']);
    expect(codes(withRunPicks(hal('together'), hankAtNine, 'nine', times))).toEqual([]);
    // One member at the same time satisfies it even when another serves at a different time.
    expect(codes(withRunPicks(hal('together'), [...hankAtNine, { contactId: 'hank', planTimeId: 'eleven' }], 'nine', times))).toEqual([]);
    expect(withRunPicks(hal('together'), [...hankAtNine, { contactId: 'hank', planTimeId: 'eleven' }], 'nine', times)).toMatchObject({ householdAtOnce: 1, householdOtherTimesThatDay: 1 });
  });

  it('someone else\'s picks never count toward a household rule', () => {
    const facts = withRunPicks(hal('apart'), [{ contactId: 'ivy', planTimeId: 'nine' }], 'nine', times);
    expect(facts).toMatchObject({ householdAtOnce: 0, householdOtherTimesThatDay: 0, servingElsewhere: 0 });
  });

  it('choosing: "apart" is placed at the other time from the household, "together" at the same time', () => {
    // Hal has never served, so he comes first wherever he is eligible; Ivy served last month.
    const ivy = free('ivy', { lastServedAt: new Date('2026-11-01') });
    expect(choosePlaces([hal('apart'), ivy], 1, hankAtNine, 'nine', times)).toEqual(['ivy']);
    expect(choosePlaces([hal('apart'), ivy], 1, hankAtNine, 'eleven', times)).toEqual(['hal']);
    expect(choosePlaces([hal('together'), ivy], 1, hankAtNine, 'nine', times)).toEqual(['hal']);
    expect(choosePlaces([hal('together'), ivy], 1, hankAtNine, 'eleven', times)).toEqual(['ivy']);
    // Within one need too: Hank (never served) is chosen first for the 9:00, which keeps Hal (apart) off it.
    const hank = free('hank', { householdIds: ['hal'] });
    const halServed = free('hal', { householdRule: 'apart', householdIds: ['hank'], lastServedAt: new Date('2026-10-01') });
    expect(choosePlaces([hank, halServed], 2, [], 'nine', times)).toEqual(['hank']);
    expect(choosePlaces([halServed], 1, [{ contactId: 'hank', planTimeId: 'nine' }], 'eleven', times)).toEqual(['hal']);
  });
});
