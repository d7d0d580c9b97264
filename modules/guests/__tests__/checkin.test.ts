import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { listCheckins } from '../checkin/published';
import { SECURITY_CODE_ALPHABET } from '../checkin/codes';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { startingIn } from '../../../test/helpers/service-times';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * Check-in with child safety end to end over MCP and HTTP: locations with capacity and ratio, a
 * household's two children under one code, the live roster, checkout with the code (a wrong code
 * refused, an unauthorised pickup flagged, a staff override recorded), every gate, medical notes by
 * role, the concurrency rules, the end-of-service sweep, and another organisation's ids as missing.
 */
describe('guests: check-in with child safety', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let owner: McpClient;
  let volunteer: McpClient;
  let volunteerKey: string;
  let otherMcp: McpClient;
  let instance: { id: string; localDate: string; endsAt: string; seriesId: string };
  const ZONE = 'Europe/London';
  const yearsAgo = (years: number, days = 0) => DateTime.now().setZone(ZONE).minus({ years, days }).toISODate()!;
  const codePattern = new RegExp(`^[${SECURITY_CODE_ALPHABET}]{4}$`);

  const ids: Record<string, string> = {};
  const contact = async (firstName: string, lastName: string, dateOfBirth?: string) =>
    (await mcpCall(owner, 'people_create_contact', { firstName, lastName, ...(dateOfBirth ? { dateOfBirth } : {}) })).contact.id as string;
  const location = async (fields: Record<string, unknown>) => (await mcpCall(owner, 'guests_create_location', fields)).location.id as string;
  const checkIn = (mcp: McpClient, args: Record<string, unknown>) => mcpCall(mcp, 'guests_check_in', { instanceId: instance.id, stationId: ids.desk, ...args });

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Anne' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    owner = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
    volunteerKey = (await harness.createKey(org.orgId, ['guests:read', 'guests:write'], 'volunteer')).apiKey;
    volunteer = await harness.mcpClient(volunteerKey);
    // A service starting in half an hour, whatever the time: its check-in window (opens an hour before) is open.
    const created = await mcpCall(owner, 'schedule_create_series', {
      title: 'Morning worship', rrule: 'FREQ=WEEKLY', ...startingIn(30, ZONE), durationMinutes: 90, timeZone: ZONE,
    });
    instance = created.upcoming[0];

    ids.jane = await contact('Jane', 'Smith');
    ids.amy = await contact('Amy', 'Smith', yearsAgo(3));
    ids.ben = await contact('Ben', 'Smith', yearsAgo(7));
    for (const child of [ids.amy, ids.ben]) {
      await mcpCall(owner, 'people_add_family_relationship', { contactId: child, relatedContactId: ids.jane, relationship: 'mother' });
    }
    ids.sarah = await contact('Sarah', 'Leader');
    ids.tom = await contact('Tom', 'Unchecked');
    ids.joan = await contact('Joan', 'Grandma');
    await mcpCall(owner, 'people_create_safeguarding_check', { contactId: ids.sarah, checkType: 'Enhanced DBS', issuedOn: yearsAgo(1), expiresOn: yearsAgo(-2) });
    await mcpCall(owner, 'guests_update_child_profile', { contactId: ids.amy, allergies: 'Peanuts (EpiPen in bag)', medicalNotes: 'Asthma inhaler', authorisedPickupIds: [ids.joan] });

    ids.toddlers = await location({ name: 'Toddlers', minAge: 2, maxAge: 4, capacity: 10, childrenPerAdult: 4, backgroundCheckRequired: true, backgroundCheckType: 'Enhanced DBS' });
    ids.juniors = await location({ name: 'Juniors', minAge: 5, maxAge: 11, capacity: 20 });
    ids.hall = await location({ name: 'Main hall' });
    ids.desk = (await mcpCall(owner, 'guests_create_check_in_station', { name: 'Welcome desk', kind: 'manned' })).station.id;
    ids.kiosk = (await mcpCall(owner, 'guests_create_check_in_station', { name: 'Foyer kiosk', kind: 'self' })).station.id;
    ids.toddlerRoster = (await mcpCall(owner, 'guests_create_check_in_station', { name: 'Toddler room door', kind: 'roster', locationId: ids.toddlers })).station.id;
    await mcpCall(owner, 'guests_update_checkin_hub', { stationId: ids.kiosk, title: 'Welcome to St Anne\'s' });
  });

  afterAll(async () => {
    await volunteer?.close();
    await otherMcp?.close();
    await owner?.close();
    await harness?.close();
  });

  describe('setup', () => {
    it('lists locations with their gates and refuses inconsistent ranges', async () => {
      const { locations } = await mcpCall(owner, 'guests_list_locations', {});
      expect(locations.map((l: any) => l.name)).toEqual(['Juniors', 'Main hall', 'Toddlers']);
      expect(locations[2]).toMatchObject({ capacity: 10, capacityMode: 'block', childrenPerAdult: 4, ratioMode: 'block', backgroundCheckRequired: true, backgroundCheckType: 'Enhanced DBS' });
      expect((await mcpRefusal(owner, 'guests_create_location', { name: 'Odd', minAge: 9, maxAge: 3 })).code).toBe('validation_failed');
      expect((await mcpRefusal(owner, 'guests_update_location', { locationId: ids.toddlers, minAge: 6 })).code).toBe('validation_failed');
      expect((await mcpRefusal(owner, 'guests_create_location', { name: 'toddlers' })).code).toBe('conflict');
      expect((await mcpRefusal(owner, 'guests_create_check_in_station', { name: 'No room', kind: 'roster' })).code).toBe('validation_failed');
    });

    it('keeps stations, the hub and per-service settings, and refuses a hub at a manned station', async () => {
      const { stations } = await mcpCall(owner, 'guests_list_stations', {});
      expect(stations.map((s: any) => s.kind).sort()).toEqual(['manned', 'roster', 'self']);
      expect((await mcpCall(owner, 'guests_get_checkin_hub', {})).hub).toMatchObject({ stationId: ids.kiosk, title: 'Welcome to St Anne\'s', printParentTag: true });
      expect((await mcpRefusal(owner, 'guests_update_checkin_hub', { stationId: ids.desk })).code).toBe('validation_failed');

      const temporary = (await mcpCall(owner, 'guests_create_check_in_station', { name: 'Spare', kind: 'manned' })).station.id;
      await mcpCall(owner, 'guests_delete_check_in_station', { stationId: temporary });
      expect((await mcpRefusal(owner, 'guests_delete_check_in_station', { stationId: temporary })).code).toBe('not_found');

      const series = await mcpCall(owner, 'guests_update_service_checkin_settings', { seriesId: instance.seriesId, labelOptions: { copies: 2 } });
      expect(series.settings).toMatchObject({ source: 'series', openLocationIds: [], labelOptions: { copies: 2, parentTag: true } });
      expect((await mcpCall(owner, 'guests_get_service_checkin_settings', { instanceId: instance.id })).settings).toMatchObject({ source: 'series', labelOptions: { copies: 2 } });
      expect((await mcpRefusal(owner, 'guests_get_service_checkin_settings', {})).code).toBe('validation_failed');
    });

    it('only opens the locations a service instance names', async () => {
      await mcpCall(owner, 'guests_update_service_checkin_settings', { instanceId: instance.id, openLocationIds: [ids.toddlers, ids.juniors] });
      const refusal = await mcpRefusal(owner, 'guests_check_in', { instanceId: instance.id, stationId: ids.desk, contactId: ids.tom, locationId: ids.hall, personKind: 'adult' });
      expect(refusal).toMatchObject({ code: 'conflict', details: { gate: 'closed' } });
      await mcpCall(owner, 'guests_update_service_checkin_settings', { instanceId: instance.id, openLocationIds: [] });
    });
  });

  describe('a Sunday morning', () => {
    let household: any;

    it('refuses a volunteer without a current safeguarding check where the room requires one, and admits one with it', async () => {
      const refusal = await mcpRefusal(owner, 'guests_check_in', { instanceId: instance.id, stationId: ids.desk, contactId: ids.tom, locationId: ids.toddlers, personKind: 'volunteer' });
      expect(refusal).toMatchObject({ code: 'conflict', details: { gate: 'background_check' } });
      const sarah = await checkIn(owner, { contactId: ids.sarah, locationId: ids.toddlers, personKind: 'volunteer' });
      expect(sarah).toMatchObject({ securityCode: null, labels: { childLabels: [], parentTag: null } });
      ids.sarahCheckin = sarah.checkins[0].id;
    });

    it('checks a household with two children in under one code, medical notes on the child label only', async () => {
      household = await mcpCall(owner, 'guests_check_in_household', {
        instanceId: instance.id, stationId: ids.desk, householdContactId: ids.jane,
        children: [{ contactId: ids.amy, locationId: ids.toddlers }, { contactId: ids.ben, locationId: ids.juniors }],
        adults: [{ contactId: ids.jane, locationId: ids.hall }],
      });
      expect(household.securityCode).toMatch(codePattern);
      expect(household.checkins).toHaveLength(3);
      expect(household.checkins.every((c: any) => c.firstTime)).toBe(true);
      const labels = household.labels;
      expect(labels.copies).toBe(2);
      expect(labels.childLabels.map((l: any) => [l.name, l.locationName, l.securityCode])).toEqual([
        ['Amy Smith', 'Toddlers', household.securityCode], ['Ben Smith', 'Juniors', household.securityCode],
      ]);
      expect(labels.childLabels[0]).toMatchObject({ medicalAlert: true, allergies: 'Peanuts (EpiPen in bag)', medicalNotes: 'Asthma inhaler', medicalWithheld: false });
      expect(labels.childLabels[1]).toMatchObject({ medicalAlert: false, allergies: null });
      expect(labels.parentTag).toEqual({ securityCode: household.securityCode, children: [{ name: 'Amy Smith', locationName: 'Toddlers' }, { name: 'Ben Smith', locationName: 'Juniors' }] });
      expect(JSON.stringify(labels.parentTag)).not.toMatch(/Peanut|Asthma/);
      ids.amyCheckin = household.checkins.find((c: any) => c.contactId === ids.amy).id;
      ids.benCheckin = household.checkins.find((c: any) => c.contactId === ids.ben).id;
    });

    it('refuses someone outside the household and a second open check-in of the same child', async () => {
      const outsider = await mcpRefusal(owner, 'guests_check_in_household', {
        instanceId: instance.id, stationId: ids.desk, householdContactId: ids.jane, children: [{ contactId: ids.tom, locationId: ids.juniors }],
      });
      expect(outsider.code).toBe('validation_failed');
      const twice = await mcpRefusal(owner, 'guests_check_in', { instanceId: instance.id, stationId: ids.desk, contactId: ids.amy, locationId: ids.toddlers, personKind: 'child' });
      expect(twice).toMatchObject({ code: 'conflict', details: { gate: 'already_checked_in' } });
    });

    it('shows the live roster with counts against capacity and ratio, and never a security code', async () => {
      const roster = await mcpCall(owner, 'guests_get_live_roster', { instanceId: instance.id });
      const toddlers = roster.rooms.find((r: any) => r.name === 'Toddlers');
      expect(toddlers).toMatchObject({ children: 1, volunteers: 1, adults: 0, capacity: 10, placesLeft: 9, childrenPerAdult: 4, ratioMet: true });
      expect(toddlers.people.find((p: any) => p.contactId === ids.amy)).toMatchObject({ name: 'Amy Smith', personKind: 'child', allergies: 'Peanuts (EpiPen in bag)' });
      expect(roster.totals).toEqual({ children: 2, adults: 1, volunteers: 1 });
      expect(JSON.stringify(roster)).not.toContain(household.securityCode);
    });

    it('shows medical and allergy notes only to roles allowed to see them', async () => {
      const asVolunteer = await mcpCall(volunteer, 'guests_get_live_roster', { instanceId: instance.id, locationId: ids.toddlers });
      expect(asVolunteer.rooms[0].people.find((p: any) => p.contactId === ids.amy)).toMatchObject({ medicalAlert: true, allergies: null, medicalNotes: null, medicalWithheld: true });
      expect((await mcpCall(volunteer, 'guests_get_child_profile', { contactId: ids.amy })).profile).toMatchObject({ allergies: null, medicalWithheld: true });
      const reprint = await mcpCall(volunteer, 'guests_reprint_label', { checkinId: ids.amyCheckin });
      expect(reprint.labels.childLabels[0]).toMatchObject({ medicalAlert: true, allergies: null, medicalWithheld: true });

      await mcpCall(owner, 'guests_update_settings', { medicalVisibleRoles: ['owner', 'admin', 'staff', 'volunteer'] });
      expect((await mcpCall(volunteer, 'guests_get_child_profile', { contactId: ids.amy })).profile).toMatchObject({ allergies: 'Peanuts (EpiPen in bag)', medicalWithheld: false });
      await mcpCall(owner, 'guests_update_settings', { medicalVisibleRoles: ['admin'] });
      expect((await mcpCall(owner, 'guests_get_child_profile', { contactId: ids.amy })).profile).toMatchObject({ allergies: null, medicalWithheld: true });
      await mcpCall(owner, 'guests_update_settings', { medicalVisibleRoles: ['owner', 'admin', 'staff'] });
    });

    it('reprints the labels with the same code', async () => {
      const reprint = await mcpCall(owner, 'guests_reprint_label', { checkinId: ids.benCheckin });
      expect(reprint.securityCode).toBe(household.securityCode);
      expect(reprint.labels.childLabels.map((l: any) => l.securityCode)).toEqual([household.securityCode, household.securityCode]);
      expect(reprint.reprints).toBe(2);
    });

    it('checks out only at a manned or roster station, and refuses a wrong or missing code', async () => {
      const base = { checkinId: ids.amyCheckin, pickupContactId: ids.jane };
      expect(await mcpRefusal(owner, 'guests_check_out_child', { ...base, stationId: ids.kiosk, securityCode: household.securityCode }))
        .toMatchObject({ code: 'conflict', details: { gate: 'station' } });
      const wrong = household.securityCode === 'AAAA' ? 'CCCC' : 'AAAA';
      expect(await mcpRefusal(owner, 'guests_check_out_child', { ...base, stationId: ids.toddlerRoster, securityCode: wrong }))
        .toMatchObject({ code: 'conflict', details: { gate: 'security_code' } });
      expect(await mcpRefusal(owner, 'guests_check_out_child', { ...base, stationId: ids.toddlerRoster }))
        .toMatchObject({ code: 'conflict', details: { gate: 'security_code' } });
      expect((await mcpRefusal(owner, 'guests_check_out_child', { ...base, stationId: ids.desk, securityCode: wrong, pickupContactId: undefined })).code).toBe('validation_failed');
    });

    it('checks a child out to a parent with the code; the code stays held while a sibling is in', async () => {
      const out = await mcpCall(volunteer, 'guests_check_out_child', {
        checkinId: ids.amyCheckin, stationId: ids.toddlerRoster, securityCode: household.securityCode.toLowerCase(), pickupContactId: ids.jane,
      });
      expect(out).toMatchObject({ codeMatched: true, pickupAuthorised: true, flagged: false, overridden: [], codeReleased: false });
      expect((await mcpRefusal(owner, 'guests_check_out_child', { checkinId: ids.amyCheckin, stationId: ids.desk, securityCode: household.securityCode, pickupContactId: ids.jane })).code).toBe('conflict');
    });

    it('flags an unauthorised pickup always; only a staff member can override, and the decision is recorded', async () => {
      const args = { checkinId: ids.benCheckin, stationId: ids.desk, securityCode: household.securityCode, pickupName: 'Uncle Bob' };
      expect(await mcpRefusal(owner, 'guests_check_out_child', args)).toMatchObject({ code: 'conflict', details: { gate: 'pickup', flagged: true } });
      const byVolunteer = await mcpRefusal(volunteer, 'guests_check_out_child', { ...args, staffOverride: { reason: 'He says mum sent him' } });
      expect(byVolunteer.code).toBe('forbidden');
      const out = await mcpCall(owner, 'guests_check_out_child', { ...args, staffOverride: { reason: 'Mum phoned the office to confirm Bob' } });
      expect(out).toMatchObject({ codeMatched: true, pickupAuthorised: false, flagged: true, overridden: ['pickup'], overrideReason: 'Mum phoned the office to confirm Bob', codeReleased: true });
      const { rows } = await harness.pool.query('SELECT pickup_name, pickup_authorised, checkout_override_reason, checkout_override_by_user_id, overrides FROM guests_checkins WHERE id = $1', [ids.benCheckin]);
      expect(rows[0]).toMatchObject({ pickup_name: 'Uncle Bob', pickup_authorised: false, checkout_override_reason: 'Mum phoned the office to confirm Bob', checkout_override_by_user_id: org.ownerUserId });
      expect(rows[0].overrides).toEqual([expect.objectContaining({ gate: 'pickup', byUserId: org.ownerUserId })]);
    });

    it('lets a person on the child\'s authorised list collect them, and a staff override replace a lost code', async () => {
      const again = await mcpCall(owner, 'guests_check_in', { instanceId: instance.id, stationId: ids.desk, contactId: ids.amy, locationId: ids.toddlers, personKind: 'child' });
      expect(again.checkins[0].firstTime).toBe(false);
      const byJoan = await mcpCall(owner, 'guests_check_out_child', {
        checkinId: again.checkins[0].id, stationId: ids.desk, pickupContactId: ids.joan, staffOverride: { reason: 'Tag lost; Joan known to the team' },
      });
      expect(byJoan).toMatchObject({ codeMatched: false, pickupAuthorised: true, flagged: false, overridden: ['security_code'], codeReleased: true });
    });
  });

  describe('gates', () => {
    it('refuses a child outside the age range at the hub, and at a manned desk without an override; records the override', async () => {
      const hub = await mcpRefusal(owner, 'guests_check_in_child_hub', { instanceId: instance.id, childContactId: ids.ben, locationId: ids.toddlers });
      expect(hub).toMatchObject({ code: 'conflict', details: { gate: 'age' } });
      expect(hub.message).toContain('Ben Smith is 7');
      const desk = await mcpRefusal(owner, 'guests_check_in', { instanceId: instance.id, stationId: ids.desk, contactId: ids.ben, locationId: ids.toddlers, personKind: 'child' });
      expect(desk).toMatchObject({ code: 'conflict', details: { gate: 'age' } });
      const overridden = await checkIn(owner, { contactId: ids.ben, locationId: ids.toddlers, personKind: 'child', overrideReason: 'Stays with his sister today' });
      expect(overridden.checkins[0].overrides).toEqual([expect.objectContaining({ gate: 'age', reason: 'Stays with his sister today', byUserId: org.ownerUserId })]);
      const hubOk = await mcpCall(owner, 'guests_check_in_child_hub', { instanceId: instance.id, childContactId: ids.amy, locationId: ids.toddlers });
      expect(hubOk.securityCode).toMatch(codePattern);
      expect(hubOk.securityCode).not.toBe(overridden.securityCode);
    });

    it('holds the grade filter too, with the grade given at check-in or on the profile', async () => {
      const graded = await location({ name: 'Year 3 club', minGrade: 3, maxGrade: 4 });
      const kid = await contact('Gus', 'Grade');
      expect(await mcpRefusal(owner, 'guests_check_in', { instanceId: instance.id, stationId: ids.kiosk, contactId: kid, locationId: graded, personKind: 'child' }))
        .toMatchObject({ code: 'conflict', details: { gate: 'grade' } });
      expect(await mcpRefusal(owner, 'guests_check_in', { instanceId: instance.id, stationId: ids.kiosk, contactId: kid, locationId: graded, personKind: 'child', grade: 5 }))
        .toMatchObject({ code: 'conflict', details: { gate: 'grade' } });
      await mcpCall(owner, 'guests_update_child_profile', { contactId: kid, grade: 3 });
      expect((await mcpCall(owner, 'guests_check_in', { instanceId: instance.id, stationId: ids.kiosk, contactId: kid, locationId: graded, personKind: 'child' })).checkins[0].overrides).toEqual([]);
    });

    it('blocks a child past the adult:child ratio, or lets them in with a warning when the room warns', async () => {
      const room = await location({ name: 'Ratio room', childrenPerAdult: 2 });
      const kids = [];
      for (let i = 0; i < 3; i += 1) kids.push(await contact(`Kid${i}`, 'Ratio'));
      expect(await mcpRefusal(owner, 'guests_check_in', { instanceId: instance.id, stationId: ids.desk, contactId: kids[0], locationId: room, personKind: 'child' }))
        .toMatchObject({ code: 'conflict', details: { gate: 'ratio', volunteers: 0 } });
      await checkIn(owner, { contactId: ids.tom, locationId: room, personKind: 'volunteer' });
      await checkIn(owner, { contactId: kids[0], locationId: room, personKind: 'child' });
      await checkIn(owner, { contactId: kids[1], locationId: room, personKind: 'child' });
      expect(await mcpRefusal(owner, 'guests_check_in', { instanceId: instance.id, stationId: ids.desk, contactId: kids[2], locationId: room, personKind: 'child' }))
        .toMatchObject({ code: 'conflict', details: { gate: 'ratio', children: 2, volunteers: 1 } });
      await mcpCall(owner, 'guests_update_location', { locationId: room, ratioMode: 'warn' });
      const warned = await checkIn(owner, { contactId: kids[2], locationId: room, personKind: 'child' });
      expect(warned.checkins[0].warnings).toEqual([expect.objectContaining({ gate: 'ratio' })]);
      const roster = await mcpCall(owner, 'guests_get_live_roster', { instanceId: instance.id, locationId: room });
      expect(roster.rooms[0]).toMatchObject({ children: 3, volunteers: 1, ratioMet: false });
    });

    it('checks a household in all or none: one refused child leaves nobody checked in and no code held', async () => {
      const tiny = await location({ name: 'Tiny room', capacity: 1 });
      await checkIn(owner, { contactId: await contact('Already', 'Tiny'), locationId: tiny, personKind: 'child' });
      const dad = await contact('Raj', 'Patel');
      const [asha, dev] = [await contact('Asha', 'Patel'), await contact('Dev', 'Patel')];
      for (const child of [asha, dev]) await mcpCall(owner, 'people_add_family_relationship', { contactId: child, relatedContactId: dad, relationship: 'father' });
      const groupsBefore = (await harness.pool.query('SELECT count(*)::int AS n FROM guests_checkin_groups WHERE org_id = $1', [org.orgId])).rows[0].n;
      const refusal = await mcpRefusal(owner, 'guests_check_in_household', {
        instanceId: instance.id, stationId: ids.desk, householdContactId: dad,
        children: [{ contactId: asha, locationId: ids.hall }, { contactId: dev, locationId: tiny }],
      });
      expect(refusal).toMatchObject({ code: 'conflict', details: { gate: 'capacity', locationId: tiny } });
      expect(await listCheckins(harness.pool, org.orgId, { from: instance.localDate, to: instance.localDate, contactId: asha })).toEqual([]);
      expect((await harness.pool.query('SELECT count(*)::int AS n FROM guests_checkin_groups WHERE org_id = $1', [org.orgId])).rows[0].n).toBe(groupsBefore);
    });

    it('draws codes of the length the settings say', async () => {
      expect((await mcpCall(owner, 'guests_update_settings', { securityCodeLength: 6 })).settings.securityCodeLength).toBe(6);
      expect((await mcpCall(volunteer, 'guests_get_checkin_settings', {})).settings).toEqual({
        securityCodeLength: 6, sweepGraceMinutes: 30, medicalVisibleRoles: ['owner', 'admin', 'staff'], checkinOpensMinutesBefore: 60, checkinClosesMinutesAfter: 30,
      });
      const longer = await checkIn(owner, { contactId: await contact('Long', 'Code'), locationId: ids.hall, personKind: 'child' });
      expect(longer.securityCode).toMatch(new RegExp(`^[${SECURITY_CODE_ALPHABET}]{6}$`));
      await mcpCall(owner, 'guests_update_settings', { securityCodeLength: 4 });
      expect((await mcpRefusal(owner, 'guests_update_settings', { securityCodeLength: 2 })).code).toBe('validation_failed');
    });

    it('warns past capacity when the room warns, instead of refusing', async () => {
      const room = await location({ name: 'Overflow', capacity: 1, capacityMode: 'warn' });
      await checkIn(owner, { contactId: await contact('First', 'Overflow'), locationId: room, personKind: 'adult' });
      const second = await checkIn(owner, { contactId: await contact('Second', 'Overflow'), locationId: room, personKind: 'adult' });
      expect(second.checkins[0].warnings).toEqual([expect.objectContaining({ gate: 'capacity' })]);
    });

    it('refuses a cancelled service and another organisation\'s ids as missing', async () => {
      const otherInstance = (await mcpCall(owner, 'schedule_create_series', {
        title: 'Evening', rrule: 'FREQ=WEEKLY', startDate: DateTime.now().setZone(ZONE).plus({ days: 2 }).toISODate(), startTime: '18:00', durationMinutes: 60, timeZone: ZONE,
      })).upcoming[0];
      await mcpCall(owner, 'schedule_cancel_instance', { instanceId: otherInstance.id, reason: 'Snow' });
      expect(await mcpRefusal(owner, 'guests_check_in', { instanceId: otherInstance.id, stationId: ids.desk, contactId: ids.jane, locationId: ids.hall, personKind: 'adult' }))
        .toMatchObject({ code: 'conflict', details: { gate: 'instance' } });

      expect((await mcpRefusal(otherMcp, 'guests_get_live_roster', { instanceId: instance.id })).code).toBe('not_found');
      expect((await mcpRefusal(otherMcp, 'guests_update_location', { locationId: ids.toddlers, capacity: 99 })).code).toBe('not_found');
      expect((await mcpRefusal(otherMcp, 'guests_reprint_label', { checkinId: ids.amyCheckin })).code).toBe('not_found');
      expect((await mcpRefusal(otherMcp, 'guests_check_out_child', { checkinId: ids.benCheckin, stationId: ids.desk, securityCode: 'AAAA', pickupName: 'X' })).code).toBe('not_found');
      expect((await mcpCall(otherMcp, 'guests_list_locations', {})).locations).toEqual([]);
    });
  });

  describe('concurrency', () => {
    it('30 concurrent check-ins into a room with 5 places left: exactly 5 succeed', async () => {
      const room = await location({ name: 'Small room', capacity: 8 });
      for (let i = 0; i < 3; i += 1) await checkIn(owner, { contactId: await contact(`Early${i}`, 'Small'), locationId: room, personKind: 'child' });
      const children = await Promise.all(Array.from({ length: 30 }, (_, i) => contact(`Rush${i}`, 'Small')));
      const results = await Promise.all(children.map((contactId) => harness.invoke(org.apiKey, 'guests_check_in', {
        instanceId: instance.id, stationId: ids.desk, contactId, locationId: room, personKind: 'child',
      })));
      expect(results.filter((r) => r.body.ok)).toHaveLength(5);
      const refused = results.filter((r) => !r.body.ok);
      expect(refused).toHaveLength(25);
      expect(refused.every((r) => r.body.error?.code === 'conflict' && r.body.error.details?.gate === 'capacity')).toBe(true);
      const roster = await mcpCall(owner, 'guests_get_live_roster', { instanceId: instance.id, locationId: room });
      expect(roster.rooms[0]).toMatchObject({ children: 8, placesLeft: 0 });
    });

    it('concurrent household check-ins never share a security code, and the database refuses a duplicate open code', async () => {
      const room = await location({ name: 'Big room' });
      const children = await Promise.all(Array.from({ length: 20 }, (_, i) => contact(`Code${i}`, 'Kid')));
      const results = await Promise.all(children.map((contactId) => harness.call(org.apiKey, 'guests_check_in', {
        instanceId: instance.id, stationId: ids.desk, contactId, locationId: room, personKind: 'child',
      })));
      const { rows } = await harness.pool.query(`SELECT security_code FROM guests_checkin_groups WHERE org_id = $1 AND local_date = $2 AND released_at IS NULL AND security_code IS NOT NULL`,
        [org.orgId, instance.localDate]);
      const codes = rows.map((row) => row.security_code as string);
      expect(new Set(codes).size).toBe(codes.length);
      expect(codes).toEqual(expect.arrayContaining(results.map((r: any) => r.securityCode)));
      const taken = codes[0];
      await expect(harness.pool.query(`INSERT INTO guests_checkin_groups (id, org_id, instance_id, local_date, security_code, station_id)
        VALUES (gen_random_uuid(), $1, $2, $3, $4, $5)`, [org.orgId, instance.id, instance.localDate, taken, ids.desk])).rejects.toMatchObject({ code: '23505' });
    });
  });

  describe('end-of-service sweep and what others read', () => {
    it('reports children still checked in after the service, to the staff, without checking anyone out', async () => {
      const ended = new Date(Date.parse(instance.endsAt) + 31 * 60_000);
      const before = await mcpCall(owner, 'guests_get_live_roster', { instanceId: instance.id });
      // A child erased mid-service: checkout never releases their household's code, so the sweep does.
      const erased = await checkIn(owner, { contactId: await contact('Erased', 'Child'), locationId: ids.hall, personKind: 'child' });
      await harness.pool.query('DELETE FROM guests_checkins WHERE id = $1', [erased.checkins[0].id]);
      expect(await harness.runJob('guests.checkin_sweep', { now: new Date(Date.parse(instance.endsAt) + 10 * 60_000), orgId: org.orgId }))
        .toEqual({ instancesReported: 0, childrenStillCheckedIn: 0, codesReleased: 1 });
      const first = await harness.runJob('guests.checkin_sweep', { now: ended, orgId: org.orgId });
      expect(first).toEqual({ instancesReported: 1, childrenStillCheckedIn: before.totals.children, codesReleased: 0 });
      expect(await harness.runJob('guests.checkin_sweep', { now: ended, orgId: org.orgId })).toEqual(first);
      const after = await mcpCall(owner, 'guests_get_live_roster', { instanceId: instance.id });
      expect(after.totals).toEqual(before.totals);
      const { reports } = await mcpCall(owner, 'guests_list_sweep_reports', {});
      expect(reports).toEqual([expect.objectContaining({ instanceId: instance.id, childrenReported: before.totals.children, stillCheckedIn: before.totals.children, staffOnDuty: 2 })]);
      const alerts = (await mcpCall(owner, 'platform_proactive_alerts', {})).alerts.filter((a: any) => a.ruleId === 'guests.children_still_checked_in');
      expect(alerts).toEqual([expect.objectContaining({ severity: 'urgent', count: before.totals.children, actWith: { tool: 'guests_get_live_roster', args: { instanceId: instance.id } } })]);
    });

    it('publishes check-in records with first-time flags, and meters unique people on the busiest day', async () => {
      const records = await listCheckins(harness.pool, org.orgId, { from: instance.localDate, to: instance.localDate, contactId: ids.amy });
      expect(records.map((r) => [r.personKind, r.firstTime, r.locationName, r.checkedOutAt === null])).toEqual([
        ['child', true, 'Toddlers', false], ['child', false, 'Toddlers', false], ['child', false, 'Toddlers', true],
      ]);
      const { rows } = await harness.pool.query('SELECT count(DISTINCT contact_id)::int AS n FROM guests_checkins WHERE org_id = $1', [org.orgId]);
      const usage = (await mcpCall(owner, 'platform_usage', {})).features.find((f: any) => f.feature === 'check_ins');
      const sameMonth = instance.localDate.slice(0, 7) === new Date().toISOString().slice(0, 7);
      expect(usage).toMatchObject({ used: sameMonth ? rows[0].n : 0, period: 'standing' });
    });
  });
});
