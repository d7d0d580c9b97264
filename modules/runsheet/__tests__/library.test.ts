import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';

/**
 * Templates (saved from a plan, applied by merge or by replace, which waits for approval when it would
 * take people off), the song usage report for CCLI (each distinct use per service time), the
 * recent-use warning of runsheet_set_song, and past plans as read-only history.
 */
jest.setTimeout(120_000);

describe('runsheet templates, songs and history', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Cuthbert', planCode: 'growth' });
  });

  afterAll(async () => harness?.close());

  const call = (tool: string, args: Record<string, unknown>) => harness.call(org.apiKey, tool, args);
  const service = (startTime: string) => [{ kind: 'service', startTime, durationMinutes: 60 }];

  /** Moves a plan (and its times) back by `days`, as the calendar would have: history cannot be made through the tools, which refuse to edit the past. */
  async function age(planId: string, days: number) {
    await harness.pool.query(`UPDATE runsheet_plan_times SET starts_at = starts_at - make_interval(days => $2), ends_at = ends_at - make_interval(days => $2) WHERE plan_id = $1`, [planId, days]);
    await harness.pool.query(`UPDATE runsheet_plans SET starts_at = starts_at - make_interval(days => $2), ends_at = ends_at - make_interval(days => $2), plan_date = plan_date - $2 WHERE id = $1`, [planId, days]);
  }

  it('saves a template and applies it by merge, and by replace only with approval when people would come off', async () => {
    const { serviceType } = await call('runsheet_create_service_type', { name: 'Communion' });
    const team = (await call('runsheet_create_team', { name: 'Servers' })).teamId;
    const chalice = (await call('runsheet_add_position', { teamId: team, name: 'Chalice' })).positionId;
    const reader = (await call('runsheet_add_position', { teamId: team, name: 'Reader' })).positionId;
    const date = DateTime.now().plus({ days: 20 }).toISODate()!;
    const source = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date, times: service('10:00') })).plan.id;
    const header = (await call('runsheet_add_item', { planId: source, kind: 'header', title: 'The Sacrament' })).itemId;
    await call('runsheet_add_item', { planId: source, kind: 'item', title: 'Prayer of consecration', parentId: header, lengthSeconds: 300 });
    await call('runsheet_set_needed_positions', { planId: source, positions: [{ positionId: chalice, quantity: 2 }] });
    const { templateId } = await call('runsheet_create_template', { name: 'Communion order', fromPlanId: source });
    const { templates } = await call('runsheet_list_templates', { serviceTypeId: serviceType.id });
    expect(templates).toEqual([{
      id: templateId, name: 'Communion order', serviceTypeId: serviceType.id,
      items: [{ kind: 'header', title: 'The Sacrament', lengthSeconds: 0, inHeader: false }, { kind: 'item', title: 'Prayer of consecration', lengthSeconds: 300, inHeader: true }],
      positions: [{ positionId: chalice, quantity: 2 }],
    }]);

    const target = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date: DateTime.fromISO(date).plus({ days: 7 }).toISODate(), times: service('10:00') })).plan.id;
    await call('runsheet_add_item', { planId: target, kind: 'item', title: 'Welcome', lengthSeconds: 60 });
    const merged = await call('runsheet_apply_template', { planId: target, templateId });
    expect(merged).toMatchObject({ mode: 'merge', itemsAdded: 2, positionsSet: 1, peopleRemoved: 0 });
    const plan = (await call('runsheet_get_plan', { planId: target })).plan;
    expect(plan.items.map((i: any) => [i.title, i.parentId === null])).toEqual([['Welcome', true], ['The Sacrament', true], ['Prayer of consecration', false]]);

    // A reader on the plan, whom the template does not need: replacing would take them off, so it waits for approval.
    const reading = (await call('people_create_contact', { firstName: 'Rue', lastName: 'Reader' })).contact.id;
    await call('runsheet_schedule_person', { planId: target, positionId: reader, contactId: reading });
    const gated = await harness.invoke(org.apiKey, 'runsheet_apply_template', { planId: target, templateId, mode: 'replace' });
    expect(gated.body.error?.code).toBe('approval_required');
    expect((await call('runsheet_get_plan', { planId: target })).plan.people).toHaveLength(1);
    // The readiness check names the approval waiting on this plan, with the call that decides it.
    const waiting = (await call('runsheet_check_readiness', { planId: target })).fixes.find((f: any) => f.area === 'approvals');
    expect(waiting).toMatchObject({ severity: 'warning', fix: { tool: 'platform_approve_proposal', args: { proposalId: gated.body.error!.details.proposalId } } });
    const decided = await call('platform_approve_proposal', { proposalId: gated.body.error!.details.proposalId });
    expect(decided.execution).toMatchObject({ status: 'succeeded', result: { mode: 'replace', peopleRemoved: 1, itemsAdded: 2 } });
    const replaced = (await call('runsheet_get_plan', { planId: target })).plan;
    expect(replaced.items.map((i: any) => i.title)).toEqual(['The Sacrament', 'Prayer of consecration']);
    expect(replaced.people).toEqual([]);

    // A plan from the template: the template's order on a new date.
    const fromTemplate = await call('runsheet_copy_plan', { templateId, date: DateTime.fromISO(date).plus({ days: 14 }).toISODate(), times: service('18:00') });
    expect(fromTemplate.plan.items).toHaveLength(2);
    expect(fromTemplate.copied).toEqual({ items: 2, positions: 1, people: 0 });
  });

  it('reports song usage per service time for CCLI, warns of a song used lately, and keeps past plans read-only', async () => {
    const { serviceType } = await call('runsheet_create_service_type', { name: 'Two services' });
    const holy = (await call('runsheet_create_song', { title: 'Holy Holy Holy', publicDomain: true })).songId;
    const modern = (await call('runsheet_create_song', { title: 'A Song Without Number' })).songId;
    const date = DateTime.now().plus({ days: 3 }).toISODate()!;
    // One plan with two services (both sing both songs, Holy twice in the order), and a plan with one service singing Holy.
    const twice = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date, times: [...service('09:00'), ...service('11:00')] })).plan.id;
    for (const songId of [holy, modern, holy]) await call('runsheet_add_item', { planId: twice, kind: 'song', songId });
    const once = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date: DateTime.fromISO(date).plus({ days: 7 }).toISODate(), times: service('10:00') })).plan.id;
    const item = (await call('runsheet_add_item', { planId: once, kind: 'song', title: 'To choose' })).itemId;
    const warned = await call('runsheet_set_song', { planId: once, itemId: item, songId: holy });
    expect(warned.recentUses.map((u: any) => u.planId)).toEqual([twice]);
    expect(warned.warnings[0]).toMatch(/"Holy Holy Holy" was used 1 time\(s\) in the 4 week\(s\) before this plan/);
    expect((await call('runsheet_set_song', { planId: once, itemId: item, songId: holy, withinWeeks: 52 })).warnings).toHaveLength(1);

    await age(twice, 30);
    await age(once, 30);
    const from = DateTime.now().minus({ days: 60 }).toISODate();
    const to = DateTime.now().toISODate();
    const report = await call('runsheet_get_song_usage_report', { from, to });
    expect(report.songs.map((s: any) => [s.title, s.uses])).toEqual([['Holy Holy Holy', 3], ['A Song Without Number', 2]]);
    expect(report.totalUses).toBe(5);
    expect(report.missingCcliNumber).toEqual(['A Song Without Number']);
    expect((await harness.invoke(org.apiKey, 'runsheet_get_song_usage_report', { from: to, to: from })).body.error?.code).toBe('validation_failed');

    const past = await harness.invoke(org.apiKey, 'runsheet_add_item', { planId: once, kind: 'item', title: 'Too late' });
    expect(past.body.error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/past and read-only/) });
    expect((await call('runsheet_get_plan', { planId: once })).plan.state).toBe('past');
    const history = await call('runsheet_list_plans', { serviceTypeId: serviceType.id, when: 'past' });
    expect(history.plans.map((p: any) => p.id)).toEqual([once, twice]);
    const songs = await call('runsheet_list_songs', { search: 'holy' });
    expect(songs.songs).toEqual([expect.objectContaining({ title: 'Holy Holy Holy', timesUsed: 2, lastUsedAt: expect.any(String) })]);
  });
});
