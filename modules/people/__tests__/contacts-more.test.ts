import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { clearPostcodeMemoryCache } from '../postcodes';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { canLockNow, holdLock, started, untilWaitingBehind } from '../../../test/helpers/row-locks';

/** A stand-in for the postcodes.io API: answers one postcode, 404s the rest, counts requests. */
function fakePostcodeService() {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    const postcode = decodeURIComponent(req.url!.split('/').pop()!);
    res.setHeader('content-type', 'application/json');
    if (postcode === 'SW1A 1AA') {
      res.end(JSON.stringify({ status: 200, result: { postcode: 'SW1A 1AA', admin_district: 'Westminster', admin_county: null, region: 'London', country: 'England' } }));
    } else {
      res.statusCode = 404;
      res.end(JSON.stringify({ status: 404, error: 'Postcode not found' }));
    }
  });
  return {
    server,
    get requests() {
      return requests;
    },
    async start() {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
  };
}

describe('contacts: postcodes, custom fields, bulk rules and usage rules', () => {
  let harness: Harness;
  let org: TestOrg;
  const postcodes = fakePostcodeService();

  beforeAll(async () => {
    process.env.POSTCODES_API_URL = await postcodes.start();
    // Its own stack: the postcode service is set in this suite's environment and its cache cleared in this process.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ country: 'GB' });
  });

  afterAll(async () => {
    delete process.env.POSTCODES_API_URL;
    postcodes.server.close();
    await harness?.close();
  });

  it('a UK postcode alone fills city, county and country, and lookups are cached', async () => {
    clearPostcodeMemoryCache();
    const before = postcodes.requests;
    const created = await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Pat', lastName: 'Post', addressLine1: '10 Downing Street', addressPostcode: 'sw1a1aa' });
    expect(created.contact).toMatchObject({ addressLine1: '10 Downing Street', addressPostcode: 'SW1A 1AA', addressCity: 'Westminster', addressCounty: 'London', addressCountry: 'England' });
    expect(created.addressDerivation).toEqual({ derived: true });
    clearPostcodeMemoryCache();
    const looked = await harness.call(org.apiKey, 'people_lookup_uk_postcode', { postcode: 'SW1A 1AA' });
    expect(looked).toEqual({ postcode: 'SW1A 1AA', city: 'Westminster', county: 'London', country: 'England' });
    expect(postcodes.requests - before).toBe(1);
  });

  it('keeps the postcode and says so when the postcode does not exist or the service is down', async () => {
    const unknown = await harness.call(org.apiKey, 'people_create_contact', { firstName: 'No', lastName: 'Where', addressPostcode: 'ZZ9 9ZZ' });
    expect(unknown.addressDerivation).toEqual({ derived: false, reason: 'postcode_not_found' });
    const saved = process.env.POSTCODES_API_URL;
    process.env.POSTCODES_API_URL = 'http://127.0.0.1:9';
    try {
      clearPostcodeMemoryCache();
      const down = await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Down', lastName: 'Time', addressPostcode: 'AB1 2CD' });
      expect(down.addressDerivation).toEqual({ derived: false, reason: 'provider_unavailable' });
      expect(down.contact).toMatchObject({ addressPostcode: 'AB1 2CD', addressCity: null });
      const lookup = await harness.invoke(org.apiKey, 'people_lookup_uk_postcode', { postcode: 'AB1 2CD' });
      expect(lookup.body.error?.code).toBe('unavailable');
    } finally {
      process.env.POSTCODES_API_URL = saved;
    }
    const notPostcode = await harness.invoke(org.apiKey, 'people_lookup_uk_postcode', { postcode: 'HELLO' });
    expect(notPostcode.body.error?.code).toBe('validation_failed');
  });

  it('validates customFields against the definitions, naming key and type', async () => {
    await harness.call(org.apiKey, 'people_create_custom_field_definition', { key: 'yearsServing', label: 'Years serving', type: 'number' });
    const wrongType = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'cf@example.org', customFields: { yearsServing: 'five' } });
    expect(wrongType.body.error?.code).toBe('validation_failed');
    expect(wrongType.body.error?.issues).toEqual([{ path: 'customFields.yearsServing', message: expect.stringContaining('yearsServing is of type number') }]);
    const unknown = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'cf@example.org', customFields: { spouse: 'Jim' } });
    expect(unknown.body.error?.issues?.[0].message).toContain('yearsServing (number)');
    expect(unknown.body.error?.issues?.[0].message).toContain('people_add_family_relationship');
    const familyField = await harness.invoke(org.apiKey, 'people_create_custom_field_definition', { key: 'spouse', label: 'Spouse', type: 'text' });
    expect(familyField.body.error?.hint).toContain('people_add_family_relationship');
    const ok = await harness.call(org.apiKey, 'people_create_contact', { email: 'cf@example.org', customFields: { yearsServing: 5 } });
    expect(ok.contact.customFields).toEqual({ yearsServing: 5 });
    const rows = await harness.pool.query("SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND email = 'cf@example.org'", [org.orgId]);
    expect(rows.rows[0].n).toBe(1);
  });

  it('bulk update is all or nothing and names the bad entry', async () => {
    const a = (await harness.call(org.apiKey, 'people_create_contact', { email: 'bulk-a@example.org' })).contact.id;
    const b = (await harness.call(org.apiKey, 'people_create_contact', { email: 'bulk-b@example.org' })).contact.id;
    const failed = await harness.invoke(org.apiKey, 'people_bulk_update_contacts', {
      entries: [{ contactId: a, firstName: 'Alpha' }, { contactId: b, dateOfBirth: '31/31/2000' }],
    });
    expect(failed.body.error?.code).toBe('validation_failed');
    expect(failed.body.error?.message).toContain('entries[1]');
    expect(failed.body.error?.issues?.[0].path).toBe('entries.1.dateOfBirth');
    const alpha = await harness.call(org.apiKey, 'people_get_contact', { contactId: a });
    expect(alpha.contact.firstName).toBeNull();
    const tooMany = await harness.invoke(org.apiKey, 'people_bulk_update_contacts', { entries: Array.from({ length: 51 }, () => ({ contactId: a, firstName: 'X' })) });
    expect(tooMany.body.error?.issues?.[0].path).toBe('entries');
  });

  it('bulk update locks its contacts in id order whatever the entries\' order, as merges do', async () => {
    const made = [];
    for (const email of ['order-a@example.org', 'order-b@example.org']) made.push((await harness.call(org.apiKey, 'people_create_contact', { email })).contact.id as string);
    const [low, high] = [...made].sort();
    const held = await holdLock(harness.pool, 'SELECT id FROM contacts WHERE id = $1 FOR UPDATE', [high]);
    // The higher id first: in the entries' order it would wait for the held row before touching the other.
    const bulk = started(() => harness.call(org.apiKey, 'people_bulk_update_contacts', { entries: [{ contactId: high, firstName: 'High' }, { contactId: low, firstName: 'Low' }] }));
    try {
      await untilWaitingBehind(harness.pool, held);
      expect(await canLockNow(harness.pool, 'SELECT id FROM contacts WHERE id = $1 FOR UPDATE NOWAIT', [low])).toBe(false);
      expect(bulk.settled()).toBe(false);
    } finally {
      await held.release();
    }
    expect((await bulk.running).results.map((r: any) => r.contactId)).toEqual([high, low]);
    for (const [contactId, firstName] of [[high, 'High'], [low, 'Low']]) {
      expect((await harness.call(org.apiKey, 'people_get_contact', { contactId })).contact.firstName).toBe(firstName);
    }
  });

  it('keeps membershipStatus apart from status, opens a Welcome Desk task for first-time visitors, and counts unsubscribes', async () => {
    const visitor = await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Val', lastName: 'Visitor', status: 'subscribed', membershipStatus: 'first_time_visitor' });
    expect(visitor.contact).toMatchObject({ status: 'subscribed', membershipStatus: 'first_time_visitor' });
    const tasks = await harness.call(org.apiKey, 'people_list_follow_up_tasks', { contactId: visitor.contact.id });
    expect(tasks.tasks).toEqual([expect.objectContaining({ title: 'Welcome Val Visitor after their first visit', status: 'open' })]);
    const before = await harness.call(org.apiKey, 'people_count_unsubscribes', {});
    await harness.call(org.apiKey, 'people_update_contact', { contactId: visitor.contact.id, status: 'unsubscribed' });
    const after = await harness.call(org.apiKey, 'people_count_unsubscribes', {});
    expect(after.unsubscribes - before.unsubscribes).toBe(1);
    const still = await harness.call(org.apiKey, 'people_get_contact', { contactId: visitor.contact.id });
    expect(still.contact.membershipStatus).toBe('first_time_visitor');
    const future = await harness.call(org.apiKey, 'people_count_unsubscribes', { from: '01/01/2099', to: '02/01/2099' });
    expect(future.unsubscribes).toBe(0);
  });

  it('opts in every contact with a phone when allWithPhone is true', async () => {
    const withPhone = await harness.call(org.apiKey, 'people_create_contact', { email: 'phone@example.org', phone: '+44 7700 900777' });
    const result = await harness.call(org.apiKey, 'people_bulk_opt_in_whatsapp', { allWithPhone: true });
    expect(result.optedIn).toBeGreaterThanOrEqual(1);
    const after = await harness.call(org.apiKey, 'people_get_contact', { contactId: withPhone.contact.id });
    expect(after.contact.whatsappConsent).toBe(true);
    const both = await harness.invoke(org.apiKey, 'people_bulk_opt_in_whatsapp', {});
    expect(both.body.error?.code).toBe('validation_failed');
  });

  it('upcoming birthdays include today and sort soonest first', async () => {
    const today = new Date();
    const iso = (d: Date) => `1985-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;
    const inThree = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 3));
    const later = await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Later', lastName: 'Bday', dateOfBirth: iso(inThree) });
    const now = await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Today', lastName: 'Bday', dateOfBirth: iso(today) });
    const result = await harness.call(org.apiKey, 'people_upcoming_birthdays', { days: 7 });
    const ids = result.birthdays.map((b: any) => b.contactId);
    expect(ids.indexOf(now.contact.id)).toBeLessThan(ids.indexOf(later.contact.id));
    expect(result.birthdays.find((b: any) => b.contactId === now.contact.id).turning).toBe(today.getUTCFullYear() - 1985);
    const none = await harness.call(org.apiKey, 'people_upcoming_birthdays', { days: 0 });
    expect(none.birthdays.map((b: any) => b.contactId)).toEqual([now.contact.id]);
  });

  it('reads a contact back exactly as written, by id and in a search (dates as days, tags, custom fields, consent, times)', async () => {
    await harness.call(org.apiKey, 'people_create_custom_field_definition', { key: 'shoeSize', label: 'Shoe size', type: 'number' });
    const written = {
      prefix: 'Rev', firstName: 'Readback', lastName: 'Exactly', preferredName: 'Rex', email: 'readback@example.org', phone: '+44 7700 900123',
      dateOfBirth: '10/12/1985', gender: 'other', addressLine1: '1 Chapel Row', addressLine2: 'Flat 2', addressCity: 'Bath', addressCounty: 'Somerset',
      addressPostcode: 'BA1 1AA', addressCountry: 'GB', membershipStatus: 'member', whatsappConsent: true, baptismDate: '01/02/2001',
      membershipDate: '2003-04-05', customFields: { shoeSize: 9 },
    };
    const created = (await harness.call(org.apiKey, 'people_create_contact', written)).contact;
    await harness.call(org.apiKey, 'people_add_contact_tags', { contactId: created.id, tags: ['Zeta Choir', 'Alpha Team'] });
    const { rows: [row] } = await harness.pool.query('SELECT created_at, updated_at FROM contacts WHERE id = $1', [created.id]);
    const expected = {
      id: created.id, displayName: 'Rex Exactly', prefix: 'Rev', firstName: 'Readback', lastName: 'Exactly', preferredName: 'Rex',
      email: 'readback@example.org', phone: '+44 7700 900123', dateOfBirth: '1985-12-10', gender: 'other',
      addressLine1: '1 Chapel Row', addressLine2: 'Flat 2', addressCity: 'Bath', addressCounty: 'Somerset', addressPostcode: 'BA1 1AA', addressCountry: 'GB',
      membershipStatus: 'member', familyId: null, whatsappConsent: true, baptismDate: '2001-02-01', membershipDate: '2003-04-05', anniversaryDate: null,
      customFields: { shoeSize: 9 }, tags: ['Alpha Team', 'Zeta Choir'],
      createdAt: (row.created_at as Date).toISOString(), updatedAt: (row.updated_at as Date).toISOString(),
    };
    const byId = (await harness.call(org.apiKey, 'people_get_contact', { contactId: created.id })).contact;
    expect(byId).toEqual({ ...expected, status: expect.any(String) });
    const { rows: [{ status }] } = await harness.pool.query('SELECT status FROM contacts WHERE id = $1', [created.id]);
    expect(byId.status).toBe(status);
    const inSearch = (await harness.call(org.apiKey, 'people_search_contacts', { query: 'Readback Exactly' })).contacts.find((c: { id: string }) => c.id === created.id);
    expect(inSearch).toBeDefined();
    for (const [key, value] of Object.entries(inSearch)) expect([key, value]).toEqual([key, byId[key]]);
  });

  it('enforces the usage rules: names not ids in notes, duplicates reported on create', async () => {
    const first = await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Dupe', lastName: 'Person', email: 'dupe@example.org' });
    const withId = await harness.invoke(org.apiKey, 'people_add_note', { contactId: first.contact.id, content: `Spoke with ${first.contact.id} today` });
    expect(withId.body.error?.code).toBe('validation_failed');
    expect(withId.body.error?.hint).toContain('name');
    const second = await harness.call(org.apiKey, 'people_create_contact', { firstName: 'dupe', lastName: 'PERSON', email: 'DUPE@example.org' });
    expect(second.likelyDuplicates).toEqual([{ id: first.contact.id, displayName: 'Dupe Person', email: 'dupe@example.org', matchedOn: ['email', 'name'] }]);
  });
});
