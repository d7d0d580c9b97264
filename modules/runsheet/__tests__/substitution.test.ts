import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { startSmtpServer, type TestSmtpServer } from '../../../test/helpers/message-servers';

/**
 * Declines that fix themselves, end to end on a stack of its own with a real mail server: a sound
 * desk volunteer declines → the substitute search (a Temporal workflow) offers the place to the best
 * ranked substitute by email → that offer expires unanswered → the next substitute is offered it and
 * accepts → the place is filled, and every step shows in runsheet_get_plan. Then a blockout gives up a
 * place on a team whose only substitute declines: the scheduler is emailed that nobody could cover it.
 */
jest.setTimeout(180_000);

async function eventually<T = any>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within 60 s: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('declines that fix themselves', () => {
  let harness: Harness;
  let smtp: TestSmtpServer;
  let org: TestOrg;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    // Its own stack: the mail server's address is read from the environment when the worker starts.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'St Luke', planCode: 'growth' });
  });

  afterAll(async () => {
    await harness?.close();
    await smtp?.close();
    delete process.env.SMTP_HOST;
    delete process.env.SMTP_PORT;
  });

  const call = (tool: string, args: Record<string, unknown>) => harness.call(org.apiKey, tool, args);
  const contact = async (firstName: string) => (await call('people_create_contact', { firstName, lastName: 'Sub', email: `${firstName.toLowerCase()}.sub@example.org` })).contact.id as string;
  const mailTo = (address: string) => smtp.delivered.filter((mail) => mail.to.includes(address));

  async function planWithDesk(teamName: string, members: string[], offerExpiresSeconds: number) {
    const { serviceType } = await call('runsheet_create_service_type', { name: `${teamName} service` });
    const team = (await call('runsheet_create_team', { name: teamName, autoReplace: true, offerExpiresSeconds })).teamId;
    const desk = (await call('runsheet_add_position', { teamId: team, name: 'Sound desk' })).positionId;
    for (const member of members) await call('runsheet_add_team_member', { positionId: desk, contactId: member });
    const date = DateTime.now().plus({ days: 10 }).toISODate();
    const plan = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date, times: [{ kind: 'service', startTime: '10:30', durationMinutes: 90 }] })).plan;
    await call('runsheet_set_needed_positions', { planId: plan.id, positions: [{ positionId: desk, quantity: 1 }] });
    return { plan, desk, team, date };
  }

  it('replaces a decline with the second substitute after the first lets the offer expire', async () => {
    const [ben, kim, lee] = [await contact('Ben'), await contact('Kim'), await contact('Lee')];
    const { plan, desk } = await planWithDesk('Sound', [ben, kim, lee], 5);
    // Kim and Lee have never served: equal on every ranking rule, they are asked in id order.
    const benRow = (await call('runsheet_schedule_person', { planId: plan.id, positionId: desk, contactId: ben })).planPersonId;
    const declined = await call('runsheet_respond_to_request', { planPersonId: benRow, response: 'decline', reason: 'Away with work' });
    expect(declined).toMatchObject({ status: 'declined', substitutionId: expect.any(String) });
    const substitutionId = declined.substitutionId as string;

    const firstOffer = await eventually<any>(async () => (await call('runsheet_get_plan', { planId: plan.id })).plan.substitutions[0]?.offers[0], Boolean, 'the first offer');
    const [first, second] = [kim, lee].sort();
    expect(firstOffer).toMatchObject({ contactId: first, rank: 1, status: 'offered' });
    await eventually(async () => mailTo(`${firstOffer.name.split(' ')[0].toLowerCase()}.sub@example.org`).length, (n) => n === 1, 'the first offer email');

    // Nobody answers: after five seconds the offer expires and the second substitute is asked.
    const secondOffer = await eventually(async () => (await call('runsheet_get_plan', { planId: plan.id })).plan.substitutions[0].offers, (offers: any[]) => offers.length === 2, 'the second offer');
    expect(secondOffer.map((o: any) => [o.contactId, o.rank, o.status])).toEqual([[first, 1, 'expired'], [second, 2, 'offered']]);
    const late = await harness.invoke(org.apiKey, 'runsheet_respond_to_request', { offerId: firstOffer.id, response: 'accept' });
    expect(late.body.error).toMatchObject({ code: 'conflict', details: { status: 'expired' } });

    const accepted = await call('runsheet_respond_to_request', { offerId: secondOffer[1].id, response: 'accept' });
    expect(accepted).toMatchObject({ status: 'accepted', offerAnswered: { offerId: secondOffer[1].id } });
    const outcome = await harness.temporal.workflow.getHandle(`runsheet-substitution-${substitutionId}`).result();
    expect(outcome).toEqual({ status: 'filled', offers: 2 });

    const after = (await call('runsheet_get_plan', { planId: plan.id })).plan;
    expect(after.substitutions[0]).toMatchObject({ status: 'filled', cause: 'declined', finishedAt: expect.any(String) });
    expect(after.people.map((p: any) => [p.contactId, p.status]).sort()).toEqual([[ben, 'declined'], [second, 'accepted']].sort());
    expect(after.neededPositions[0]).toMatchObject({ quantity: 1, filled: 1, accepted: 1, open: 0 });
    expect(after.people.find((p: any) => p.contactId === second).substitutionId).toBe(substitutionId);
    // The search's own changes are in the trail, the system as actor: the first offer made, then expired.
    const trail = (await call('audit_list_events', { targetId: firstOffer.id, actorKind: 'system' })).events;
    expect(trail.map((event: any) => [event.action, event.tool])).toEqual([['runsheet.offer.expire', 'job:runsheet.substitution'], ['runsheet.offer.create', 'job:runsheet.substitution']]);
  });

  it('ends the search when the place is filled by hand meanwhile: a late acceptance is refused', async () => {
    const [una, vic, wes] = [await contact('Una'), await contact('Vic'), await contact('Wes')];
    const { plan, desk } = await planWithDesk('Streaming', [una, vic], 5);
    const unaRow = (await call('runsheet_schedule_person', { planId: plan.id, positionId: desk, contactId: una })).planPersonId;
    const { substitutionId } = await call('runsheet_respond_to_request', { planPersonId: unaRow, response: 'decline' });
    const offer = await eventually<any>(async () => (await call('runsheet_get_plan', { planId: plan.id })).plan.substitutions[0]?.offers[0], Boolean, 'the offer');
    expect(offer.contactId).toBe(vic);
    await call('runsheet_schedule_person', { planId: plan.id, positionId: desk, contactId: wes });
    const late = await harness.invoke(org.apiKey, 'runsheet_respond_to_request', { offerId: offer.id, response: 'accept' });
    expect(late.body.error).toMatchObject({ code: 'conflict', details: { reason: 'position_full' } });
    expect(await harness.temporal.workflow.getHandle(`runsheet-substitution-${substitutionId}`).result()).toEqual({ status: 'cancelled', offers: 1 });
    const after = (await call('runsheet_get_plan', { planId: plan.id })).plan;
    expect(after.substitutions[0]).toMatchObject({ status: 'cancelled' });
    expect(after.people.filter((p: any) => p.status !== 'declined').map((p: any) => p.contactId)).toEqual([wes]);
  });

  it('tells the scheduler when nobody takes a place a blockout gave up', async () => {
    const [ada, cal] = [await contact('Ada'), await contact('Cal')];
    const { plan, desk, date } = await planWithDesk('Projection', [ada, cal], 600);
    await call('runsheet_schedule_person', { planId: plan.id, positionId: desk, contactId: ada });
    const blockout = await call('runsheet_record_blockout', { contactId: ada, startsOn: date, reason: 'Holiday' });
    expect(blockout.released).toHaveLength(1);
    const offer = await eventually<any>(async () => (await call('runsheet_get_plan', { planId: plan.id })).plan.substitutions[0]?.offers[0], Boolean, 'the offer');
    expect(offer).toMatchObject({ contactId: cal, status: 'offered' });
    await call('runsheet_respond_to_request', { offerId: offer.id, response: 'decline', reason: 'Busy' });
    const outcome = await harness.temporal.workflow.getHandle(`runsheet-substitution-${blockout.released[0].substitutionId}`).result();
    expect(outcome).toEqual({ status: 'unfilled', offers: 1 });
    const scheduler = `owner-${org.orgId}@test.local`;
    const notice = await eventually(async () => mailTo(scheduler), (mails) => mails.length === 1, 'the scheduler\'s notice');
    expect(notice[0].raw).toMatch(/Nobody could cover Sound desk/);
    const after = (await call('runsheet_get_plan', { planId: plan.id })).plan;
    expect(after.substitutions[0]).toMatchObject({ status: 'unfilled', cause: 'blockout' });
    expect(after.neededPositions[0]).toMatchObject({ filled: 0, open: 1 });
    const ended = await call('audit_get_entity_history', { targetType: 'substitution', targetId: blockout.released[0].substitutionId });
    expect(ended.entries.find((entry: any) => entry.action === 'runsheet.substitution.end').changes)
      .toEqual(expect.arrayContaining([{ field: 'status', before: 'searching', after: 'unfilled' }, { field: 'why', after: 'nobody_left' }]));
  });

  it('sends rota requests through the outbox, skipping who cannot be reached, and holds a large send for approval', async () => {
    const { serviceType } = await call('runsheet_create_service_type', { name: 'Requests service' });
    const team = (await call('runsheet_create_team', { name: 'Welcome' })).teamId;
    const door = (await call('runsheet_add_position', { teamId: team, name: 'Door' })).positionId;
    const date = DateTime.now().plus({ days: 11 }).toISODate();
    const plan = (await call('runsheet_create_plan', { serviceTypeId: serviceType.id, date, times: [{ kind: 'service', startTime: '10:30', durationMinutes: 90 }] })).plan;
    await call('runsheet_set_needed_positions', { planId: plan.id, positions: [{ positionId: door, quantity: 40 }] });
    const reachable = await contact('Rhea');
    const noAddress = (await call('people_create_contact', { firstName: 'Nora', lastName: 'Noemail' })).contact.id;
    for (const person of [reachable, noAddress]) await call('runsheet_schedule_person', { planId: plan.id, positionId: door, contactId: person });

    const sent = await call('runsheet_send_requests', { planId: plan.id, note: 'Coffee from 9:45.' });
    expect(sent.queued.map((q: any) => q.contactId)).toEqual([reachable]);
    expect(sent.skipped).toEqual([{ contactId: noAddress, name: 'Nora Noemail', reason: expect.any(String), message: expect.any(String) }]);
    const mail = await eventually(async () => mailTo('rhea.sub@example.org'), (mails) => mails.length === 1, 'the request email');
    expect(mail[0].raw).toMatch(/Coffee from 9:45\./);
    const asked = await eventually(async () => (await call('runsheet_get_plan', { planId: plan.id })).plan, (p: any) => p.people.find((x: any) => x.contactId === reachable).notifiedAt !== null, 'notifiedAt');
    expect(asked.state).toBe('scheduled');
    // Asking again asks nobody new: Rhea has her request, Nora still has no address.
    expect((await call('runsheet_send_requests', { planId: plan.id })).queued).toEqual([]);

    // Twenty-six more at once: the send waits for a person's approval, then goes.
    for (let i = 0; i < 26; i += 1) {
      const person = (await call('people_create_contact', { firstName: `Greeter${i}`, lastName: 'Many', email: `greeter${i}@example.org` })).contact.id;
      await call('runsheet_schedule_person', { planId: plan.id, positionId: door, contactId: person });
    }
    const gated = await harness.invoke(org.apiKey, 'runsheet_send_requests', { planId: plan.id });
    expect(gated.body.error?.code).toBe('approval_required');
    expect(smtp.delivered.filter((m) => m.to.some((to) => to.startsWith('greeter')))).toHaveLength(0);
    const decided = await call('platform_approve_proposal', { proposalId: gated.body.error!.details.proposalId });
    expect(decided.execution).toMatchObject({ status: 'succeeded' });
    await eventually(async () => smtp.delivered.filter((m) => m.to.some((to) => to.startsWith('greeter'))).length, (n) => n === 26, 'the approved requests');
  });

  /** The token of the answer link in a delivered email (quoted-printable soft breaks undone). */
  function linkToken(raw: string): string {
    const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const token = /\/runsheet\/respond\/([A-Za-z0-9._-]+)/.exec(text)?.[1];
    if (!token) throw new Error('no answer link in the email');
    return token;
  }
  const answer = (token: string, form?: Record<string, string>) => fetch(`${harness.url}/runsheet/respond/${token}`, form
    ? { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() }
    : {});

  it('lets volunteers answer from their own link: a decline starts the search, and the substitute accepts from theirs', async () => {
    const [ivy, jon] = [await contact('Ivy'), await contact('Jon')];
    const { plan, desk } = await planWithDesk('Lighting', [ivy, jon], 600);
    await call('runsheet_schedule_person', { planId: plan.id, positionId: desk, contactId: ivy });
    await call('runsheet_send_requests', { planId: plan.id });
    const request = await eventually(async () => mailTo('ivy.sub@example.org'), (mails) => mails.length === 1, 'Ivy\'s request');
    const token = linkToken(request[0].raw);

    const shown = await answer(token);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toMatch(/Sound desk/);
    expect((await answer(`${token.slice(0, -2)}xx`)).status).toBe(404);
    expect((await answer(token, { response: 'maybe' })).status).toBe(400);
    const declined = await answer(token, { response: 'decline', reason: 'Away' });
    expect(declined.status).toBe(200);

    const offerMail = await eventually(async () => mailTo('jon.sub@example.org'), (mails) => mails.length === 1, 'Jon\'s offer');
    const accepted = await answer(linkToken(offerMail[0].raw), { response: 'accept' });
    expect(accepted.status).toBe(200);
    const search = (await call('runsheet_get_plan', { planId: plan.id })).plan.substitutions[0];
    expect(await harness.temporal.workflow.getHandle(search.workflowId).result()).toEqual({ status: 'filled', offers: 1 });
    const after = (await call('runsheet_get_plan', { planId: plan.id })).plan;
    expect(after.people.map((p: any) => [p.contactId, p.status, p.declineReason]).sort()).toEqual([[ivy, 'declined', 'Away'], [jon, 'accepted', null]].sort());
    // The offer is answered: its link now says so, and answering again changes nothing.
    expect(await (await answer(linkToken(offerMail[0].raw))).text()).toMatch(/This offer is accepted/);
    expect((await answer(linkToken(offerMail[0].raw), { response: 'decline' })).status).toBe(409);
  });
});
