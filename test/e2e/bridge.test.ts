import { OPERATOR_SCOPE } from '../../core/scopes';
import { revokeApiKey } from '../../kernel/api-keys';
import { allTools, permittedTools } from '../../modules/catalogue';
import { inputSchemaOf } from '../../modules/schema';
import { Harness, type TestOrg } from '../helpers/harness';

/** Rows an organisation owns, per table: "nothing was written" means none of these moved. */
async function footprint(harness: Harness, orgId: string) {
  const { rows } = await harness.pool.query(`
    SELECT (SELECT count(*)::int FROM contacts WHERE org_id = $1) AS contacts,
           (SELECT count(*)::int FROM notes WHERE org_id = $1) AS notes,
           (SELECT count(*)::int FROM timeline_entries WHERE org_id = $1) AS timeline,
           (SELECT count(*)::int FROM usage_events WHERE org_id = $1) AS usage,
           (SELECT count(*)::int FROM tool_call_results WHERE org_id = $1) AS results,
           -- Changes recorded; a refused or failed write leaves a denied/failed event by design (modules/audit/record.ts).
           (SELECT count(*)::int FROM audit_events WHERE org_id = $1 AND outcome = 'success') AS audit`, [orgId]);
  return rows[0] as Record<string, number>;
}

describe('function-calling bridge (/api/agent)', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Bridge Church' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  const get = (path: string, apiKey?: string | null, headers: Record<string, string> = {}) =>
    fetch(`${harness.url}${path}`, { headers: { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers } });

  describe('GET /api/agent/tools', () => {
    it('gives OpenAI function-calling format for every permitted tool', async () => {
      const response = await get('/api/agent/tools', org.apiKey);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { tools: Array<{ type: string; function: { name: string; description: string; parameters: any } }> };
      // Every tool an organisation's key can hold; the operator's pair needs a platform admin's operator key.
      expect(body.tools.map((t) => t.function.name).sort()).toEqual(allTools().filter((t) => t.scope !== OPERATOR_SCOPE).map((t) => t.name).sort());
      for (const entry of body.tools) {
        expect(entry.type).toBe('function');
        expect(entry.function.description.length).toBeGreaterThan(0);
        expect(entry.function.parameters.type).toBe('object');
      }
      const create = body.tools.find((t) => t.function.name === 'people_create_contact')!;
      expect(create.function.parameters).toEqual(inputSchemaOf(allTools().find((t) => t.name === 'people_create_contact')!));
      expect(Object.keys(create.function.parameters.properties)).toEqual(expect.arrayContaining(['firstName', 'lastName', 'email', 'dateOfBirth']));
    });

    it('lists only the tools a narrower key may use', async () => {
      const reader = await harness.createKey(org.orgId, ['people:read']);
      const body = (await (await get('/api/agent/tools', reader.apiKey)).json()) as { tools: Array<{ function: { name: string } }> };
      expect(body.tools.map((t) => t.function.name).sort()).toEqual(permittedTools(['people:read']).map((t) => t.name).sort());
      expect(body.tools.map((t) => t.function.name)).not.toContain('people_create_contact');
    });

    it('gives a manifest with ?format=manifest', async () => {
      const reader = await harness.createKey(org.orgId, ['people:read', 'platform:read']);
      const response = await get('/api/agent/tools?format=manifest', reader.apiKey);
      expect(response.status).toBe(200);
      const body = (await response.json()) as any;
      const permitted = permittedTools(['people:read', 'platform:read']);
      expect(body.counts).toEqual({ permitted: permitted.length, catalogue: allTools().length });
      expect(body.tools).toHaveLength(permitted.length);
      const getContact = body.tools.find((t: any) => t.name === 'people_get_contact');
      expect(getContact).toMatchObject({
        module: 'people', scope: 'people:read', effect: 'read', method: 'GET', metered: null,
        annotations: { readOnlyHint: true, destructiveHint: false },
      });
      expect(getContact.inputSchema.required).toEqual(['contactId']);
      expect(getContact.outputSchema.type).toBe('object');
    });

    it('refuses an unknown format', async () => {
      const response = await get('/api/agent/tools?format=yaml', org.apiKey);
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).error.code).toBe('validation_failed');
    });

    it('needs a credential', async () => {
      const response = await get('/api/agent/tools');
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });
  });

  describe('POST /api/agent/invoke: contacts, notes and timeline', () => {
    it('creates, searches, updates and soft-deletes a contact', async () => {
      const created = await harness.invoke(org.apiKey, 'people_create_contact', {
        firstName: 'Ada', lastName: 'Lovelace', email: 'Ada@Example.org', dateOfBirth: '10/12/1985', membershipStatus: 'member',
      });
      expect(created.status).toBe(200);
      expect(created.body.ok).toBe(true);
      const contact = created.body.result.contact;
      expect(contact).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.org', dateOfBirth: '1985-12-10', displayName: 'Ada Lovelace' });
      expect(contact.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.body.result.likelyDuplicates).toEqual([]);
      const row = await harness.pool.query('SELECT first_name, date_of_birth, org_id FROM contacts WHERE id = $1', [contact.id]);
      expect(row.rows).toEqual([{ first_name: 'Ada', date_of_birth: '1985-12-10', org_id: org.orgId }]);

      const duplicate = await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Ada', lastName: 'Lovelace' });
      expect(duplicate.likelyDuplicates).toEqual([expect.objectContaining({ id: contact.id, matchedOn: ['name'] })]);

      const found = await harness.call(org.apiKey, 'people_search_contacts', { query: 'ada@example' });
      expect(found.contacts.map((c: any) => c.id)).toEqual([contact.id]);
      const members = await harness.call(org.apiKey, 'people_search_contacts', { query: 'lovelace', membershipStatus: 'member' });
      expect(members.contacts.map((c: any) => c.id)).toEqual([contact.id]);
      const wrongStatus = await harness.call(org.apiKey, 'people_search_contacts', { query: 'lovelace', status: 'bounced' });
      expect(wrongStatus.contacts).toEqual([]);

      const fetched = await harness.call(org.apiKey, 'people_get_contact', { contactId: contact.id });
      expect(fetched.contact).toEqual(contact);

      // The postcode's town comes from the lookup cache (shared by every suite on this database, so set here
      // rather than left to whichever suite ran first; no outside service is reached in tests).
      await harness.pool.query(`INSERT INTO postcode_cache (postcode, result) VALUES
        ('SW1A 1AA', '{"postcode":"SW1A 1AA","city":"Westminster","county":"London","country":"England"}')
        ON CONFLICT (postcode) DO UPDATE SET result = EXCLUDED.result, fetched_at = now()`);
      const updated = await harness.call(org.apiKey, 'people_update_contact', { contactId: contact.id, preferredName: 'Countess', addressPostcode: 'SW1A 1AA' });
      expect(updated.changedFields.sort()).toEqual(['addressCity', 'addressCountry', 'addressCounty', 'addressPostcode', 'preferredName']);
      expect(updated.addressDerivation).toEqual({ derived: true });
      expect(updated.contact).toMatchObject({ preferredName: 'Countess', addressPostcode: 'SW1A 1AA', addressCity: 'Westminster', email: 'ada@example.org', dateOfBirth: '1985-12-10', membershipStatus: 'member' });

      const listed = await harness.call(org.apiKey, 'people_list_contacts', { membershipStatus: 'member' });
      expect(listed.total).toBe(1);
      expect(listed.contacts.map((c: any) => c.id)).toEqual([contact.id]);

      const deleted = await harness.call(org.apiKey, 'people_delete_contact', { contactId: contact.id });
      expect(deleted).toEqual({ contactId: contact.id, deleted: 'soft', erasedNotes: 0 });
      const gone = await harness.invoke(org.apiKey, 'people_get_contact', { contactId: contact.id });
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual({ ok: false, error: expect.objectContaining({ code: 'not_found' }) });
      const searchedAgain = await harness.call(org.apiKey, 'people_search_contacts', { query: 'ada@example' });
      expect(searchedAgain.contacts).toEqual([]);
      // Soft: the row is still there, only hidden.
      const kept = await harness.pool.query('SELECT deleted_at FROM contacts WHERE id = $1', [contact.id]);
      expect(kept.rows[0].deleted_at).toBeInstanceOf(Date);
    });

    it('searches by filters alone, without text', async () => {
      const fresh = await harness.createOrg({ name: 'Filter Chapel' });
      const member = await harness.call(fresh.apiKey, 'people_create_contact', { email: 'member@example.org', membershipStatus: 'member', status: 'subscribed' });
      await harness.call(fresh.apiKey, 'people_create_contact', { email: 'visitor@example.org', membershipStatus: 'first_time_visitor' });
      const found = await harness.invoke(fresh.apiKey, 'people_search_contacts', { membershipStatus: 'member' });
      expect(found.body.error).toBeUndefined();
      expect(found.status).toBe(200);
      expect(found.body.result.contacts.map((c: any) => c.id)).toEqual([member.contact.id]);
    });

    it('adds notes and shows them, newest first, on the notes list and the care timeline', async () => {
      const { contact } = await harness.call(org.apiKey, 'people_create_contact', { email: 'timeline@example.org' });
      const first = await harness.call(org.apiKey, 'people_add_note', { contactId: contact.id, content: 'Phoned about the choir', followUpDate: '01/03/2030' });
      expect(first.note).toMatchObject({ contactId: contact.id, content: 'Phoned about the choir', privacy: 'team', confidentialityLevel: 'green', followUpDate: '2030-03-01', followUpCompleted: false, authorUserId: org.ownerUserId });
      const second = await harness.call(org.apiKey, 'people_add_note', { contactId: contact.id, content: 'Visited at home' });

      const notes = await harness.call(org.apiKey, 'people_list_notes', { contactId: contact.id });
      expect(notes.notes.map((n: any) => n.id)).toEqual([second.note.id, first.note.id]);

      const timeline = await harness.call(org.apiKey, 'people_list_care_timeline', { contactId: contact.id });
      expect(timeline.entries.map((e: any) => [e.kind, e.sourceId])).toEqual([
        ['note_added', second.note.id], ['note_added', first.note.id], ['contact_created', contact.id],
      ]);
      expect(timeline.entries[0].summary).toBe('Visited at home');
    });

    it('refuses a note whose follow-up date is impossible, writing nothing', async () => {
      const { contact } = await harness.call(org.apiKey, 'people_create_contact', { email: 'followup@example.org' });
      const before = await footprint(harness, org.orgId);
      const bad = await harness.invoke(org.apiKey, 'people_add_note', { contactId: contact.id, content: 'x', followUpDate: '31/02/2030' });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'followUpDate' }] });
      expect(await footprint(harness, org.orgId)).toEqual(before);
    });
  });

  describe('refusals', () => {
    it('refuses a tool outside the key\'s scopes with 403 insufficient_scope naming the scope', async () => {
      const reader = await harness.createKey(org.orgId, ['people:read']);
      const before = await footprint(harness, org.orgId);
      const refused = await harness.invoke(reader.apiKey, 'people_create_contact', { email: 'nope@example.org' });
      expect(refused.status).toBe(403);
      expect(refused.body.ok).toBe(false);
      expect(refused.body.error!.code).toBe('insufficient_scope');
      expect(refused.body.error!.message).toContain('people:write');
      expect(refused.body.error!.details).toEqual({ requiredScope: 'people:write' });
      expect(await footprint(harness, org.orgId)).toEqual(before);

      const noPlatform = await harness.invoke(reader.apiKey, 'platform_overview', {});
      expect(noPlatform.status).toBe(403);
      expect(noPlatform.body.error!.message).toContain('platform:read');
    });

    it.each([
      ['wrong type', 'people_create_contact', { firstName: 42, lastName: 'Smith' }, 'firstName'],
      ['unknown key', 'people_create_contact', { email: 'u@example.org', favouriteColour: 'blue' }, 'favouriteColour'],
      ['unknown key on update', 'people_update_contact', { contactId: '00000000-0000-4000-8000-000000000000', familyId: 'x' }, 'familyId'],
      ['bad email', 'people_create_contact', { email: 'not-an-email' }, 'email'],
      ['bad enum', 'people_create_contact', { email: 'e@example.org', status: 'maybe' }, 'status'],
      ['nested custom field', 'people_create_contact', { email: 'c@example.org', customFields: { shoe: { size: 9 } } }, 'customFields.shoe'],
      ['missing required contactId', 'people_update_contact', { phone: '01234 567890' }, 'contactId'],
      ['missing content', 'people_add_note', { contactId: '00000000-0000-4000-8000-000000000000' }, 'content'],
      ['not a uuid', 'people_get_contact', { contactId: 'abc' }, 'contactId'],
      ['arguments not an object', 'people_create_contact', ['email'], '(arguments)'],
    ])('bad arguments (%s) → 400 validation_failed with the field path, nothing written', async (_label, tool, args, path) => {
      const before = await footprint(harness, org.orgId);
      const response = await harness.invoke(org.apiKey, tool, args);
      expect(response.status).toBe(400);
      expect(response.body.ok).toBe(false);
      expect(response.body.error!.code).toBe('validation_failed');
      expect(response.body.error!.issues!.map((i) => i.path)).toContain(path);
      expect(response.body.error!.message).toContain(tool);
      expect(response.body.error!.hint).toContain('platform_inspect_tools');
      expect(await footprint(harness, org.orgId)).toEqual(before);
    });

    it('names the unknown key itself in the error', async () => {
      const response = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'u@example.org', favouriteColour: 'blue' });
      expect(response.body.error!.message).toContain('favouriteColour');
    });

    it.each([
      ['status', null],
      ['whatsappConsent', null],
    ])('refuses clearing %s, which cannot be empty, with 400 validation_failed, nothing written', async (field, value) => {
      const { contact } = await harness.call(org.apiKey, 'people_create_contact', { email: `clear-${field}@example.org` });
      const before = await footprint(harness, org.orgId);
      const response = await harness.invoke(org.apiKey, 'people_update_contact', { contactId: contact.id, [field]: value });
      expect(response.body.error).toMatchObject({ code: 'validation_failed' });
      expect(response.status).toBe(400);
      expect(response.body.error!.issues!.map((i) => i.path)).toContain(field);
      expect(await footprint(harness, org.orgId)).toEqual(before);
      const still = await harness.call(org.apiKey, 'people_get_contact', { contactId: contact.id });
      expect(still.contact).toMatchObject({ status: 'non_subscribed', whatsappConsent: false });
    });

    it('refuses a contact with neither email nor full name (a business rule), nothing written', async () => {
      const before = await footprint(harness, org.orgId);
      const response = await harness.invoke(org.apiKey, 'people_create_contact', { firstName: 'OnlyFirst' });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'email' }] });
      expect(await footprint(harness, org.orgId)).toEqual(before);
    });

    it('refuses an impossible date of birth, nothing written', async () => {
      const before = await footprint(harness, org.orgId);
      const response = await harness.invoke(org.apiKey, 'people_create_contact', { email: 'dob@example.org', dateOfBirth: '31/02/2000' });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'validation_failed', issues: [{ path: 'dateOfBirth' }] });
      expect(await footprint(harness, org.orgId)).toEqual(before);
    });

    it('answers an unknown tool with 404 unknown_tool', async () => {
      const response = await harness.invoke(org.apiKey, 'people_fly_to_moon', {});
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ ok: false, error: expect.objectContaining({ code: 'unknown_tool', hint: expect.stringContaining('platform_search_tools') }) });
    });

    it('refuses a body without a tool name', async () => {
      const response = await fetch(`${harness.url}/api/agent/invoke`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${org.apiKey}` }, body: JSON.stringify({ arguments: {} }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).error.code).toBe('validation_failed');
    });

    it('refuses a malformed JSON body with 400, nothing written', async () => {
      const before = await footprint(harness, org.orgId);
      const response = await fetch(`${harness.url}/api/agent/invoke`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${org.apiKey}` },
        body: '{"tool": "people_create_contact", "arguments": {"email": "x@example.org"',
      });
      expect(response.status).toBe(400);
      const body = (await response.json()) as any;
      expect(body.ok).toBe(false);
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.message).toMatch(/json/i);
      expect(await footprint(harness, org.orgId)).toEqual(before);
    });
  });

  describe('credentials', () => {
    it('refuses a revoked key with 401 and WWW-Authenticate: Bearer', async () => {
      const key = await harness.createKey(org.orgId, ['people:read', 'people:write']);
      const before = await harness.invoke(key.apiKey, 'people_list_contacts', {});
      expect(before.status).toBe(200);
      expect(await revokeApiKey(harness.pool, org.orgId, key.keyId)).toBe(true);

      const response = await fetch(`${harness.url}/api/agent/invoke`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key.apiKey}` },
        body: JSON.stringify({ tool: 'people_create_contact', arguments: { email: 'revoked@example.org' } }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      const found = await harness.pool.query('SELECT count(*)::int AS n FROM contacts WHERE email = $1', ['revoked@example.org']);
      expect(found.rows[0].n).toBe(0);
      expect((await get('/api/agent/tools', key.apiKey)).status).toBe(401);
    });

    it('revoking is scoped to the key\'s own organisation', async () => {
      const other = await harness.createOrg({ name: 'Other Church' });
      const key = await harness.createKey(org.orgId, ['people:read']);
      expect(await revokeApiKey(harness.pool, other.orgId, key.keyId)).toBe(false);
      expect((await harness.invoke(key.apiKey, 'people_list_contacts', {})).status).toBe(200);
    });

    it('refuses a missing credential with 401 and WWW-Authenticate: Bearer', async () => {
      const response = await harness.invoke(null, 'people_list_contacts', {});
      expect(response.status).toBe(401);
      const raw = await fetch(`${harness.url}/api/agent/invoke`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'people_list_contacts', arguments: {} }),
      });
      expect(raw.status).toBe(401);
      expect(raw.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    });

    it('refuses an unknown or malformed bearer token with 401', async () => {
      for (const token of ['sk_live_not-a-real-key', 'some-other-token']) {
        const response = await harness.invoke(token, 'people_list_contacts', {});
        expect(response.status).toBe(401);
      }
      const basic = await fetch(`${harness.url}/api/agent/tools`, { headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
      expect(basic.status).toBe(401);
      expect(basic.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    });

    it('refuses an API key in the query string, even a valid one', async () => {
      const before = await footprint(harness, org.orgId);
      for (const param of ['access_token', 'api_key']) {
        const response = await fetch(`${harness.url}/api/agent/invoke?${param}=${encodeURIComponent(org.apiKey)}`, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ tool: 'people_create_contact', arguments: { email: `query-${param}@example.org` } }),
        });
        expect(response.status).toBe(400);
        expect(JSON.stringify(await response.json())).not.toContain(org.apiKey);
      }
      const withHeaderToo = await fetch(`${harness.url}/api/agent/tools?access_token=${encodeURIComponent(org.apiKey)}`, {
        headers: { authorization: `Bearer ${org.apiKey}` },
      });
      expect(withHeaderToo.status).toBe(400);
      expect(await footprint(harness, org.orgId)).toEqual(before);
    });
  });

  describe('platform tools', () => {
    it('platform_execute_workflow_tool runs an inner tool', async () => {
      const { contact } = await harness.call(org.apiKey, 'people_create_contact', { email: 'inner@example.org' });
      const result = await harness.call(org.apiKey, 'platform_execute_workflow_tool', { toolName: 'people_get_contact', arguments: { contactId: contact.id } });
      expect(result.contact).toMatchObject({ id: contact.id, email: 'inner@example.org' });

      const before = await footprint(harness, org.orgId);
      const created = await harness.call(org.apiKey, 'platform_execute_workflow_tool', { toolName: 'people_create_contact', arguments: { email: 'inner-created@example.org' } });
      expect(created.contact.email).toBe('inner-created@example.org');
      const after = await footprint(harness, org.orgId);
      expect(after.contacts).toBe(before.contacts + 1);
      // Metered like a direct call.
      expect(after.usage).toBe(before.usage + 1);
    });

    it('platform_execute_workflow_tool applies the inner tool\'s scope and validation', async () => {
      const platformOnly = await harness.createKey(org.orgId, ['platform:read']);
      const before = await footprint(harness, org.orgId);
      const refused = await harness.invoke(platformOnly.apiKey, 'platform_execute_workflow_tool', { toolName: 'people_create_contact', arguments: { email: 'sneaky@example.org' } });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'insufficient_scope' });
      expect(refused.body.error!.message).toContain('people:write');
      const invalid = await harness.invoke(org.apiKey, 'platform_execute_workflow_tool', { toolName: 'people_create_contact', arguments: { email: 5 } });
      expect(invalid.status).toBe(400);
      expect(invalid.body.error!.issues!.map((i) => i.path)).toContain('email');
      const unknown = await harness.invoke(org.apiKey, 'platform_execute_workflow_tool', { toolName: 'people_fly_to_moon', arguments: {} });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error!.code).toBe('unknown_tool');
      const itself = await harness.invoke(org.apiKey, 'platform_execute_workflow_tool', { toolName: 'platform_execute_workflow_tool', arguments: { toolName: 'platform_overview' } });
      expect(itself.status).toBe(400);
      expect(itself.body.error!.code).toBe('validation_failed');
      expect(itself.body.error!.issues!.map((i) => i.path)).toContain('toolName');
      expect(await footprint(harness, org.orgId)).toEqual(before);
    });

    it('platform_execute_workflow_tool refuses *_invoke_api_* route bridges with use_invoke_bridge', async () => {
      for (const toolName of ['people_invoke_api_read', 'platform_invoke_dashboard_api_write']) {
        const response = await harness.invoke(org.apiKey, 'platform_execute_workflow_tool', { toolName, arguments: {} });
        expect(response.status).toBe(400);
        expect(response.body.error!.code).toBe('use_invoke_bridge');
        expect(response.body.error!.message).toContain(toolName);
      }
    });

    it('platform_inspect_tools returns schemas for at most 10 names', async () => {
      const reader = await harness.createKey(org.orgId, ['platform:read', 'people:read']);
      const out = await harness.call(reader.apiKey, 'platform_inspect_tools', { names: ['people_get_contact', 'people_create_contact', 'nope_tool', 'people_get_contact'] });
      expect(out.tools.map((t: any) => t.name)).toEqual(['people_get_contact']);
      expect(out.tools[0].inputSchema).toEqual(inputSchemaOf(allTools().find((t) => t.name === 'people_get_contact')!));
      expect(out.notFound).toEqual(['nope_tool']);
      expect(out.notPermitted).toEqual([{ name: 'people_create_contact', scope: 'people:write' }]);

      const eleven = allTools().slice(0, 11).map((t) => t.name);
      while (eleven.length < 11) eleven.push(`made_up_tool_${eleven.length}`);
      const refused = await harness.invoke(org.apiKey, 'platform_inspect_tools', { names: eleven });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'validation_failed' });
      expect(refused.body.error!.issues!.map((i) => i.path)).toContain('names');
      const ten = await harness.call(org.apiKey, 'platform_inspect_tools', { names: eleven.slice(0, 10) });
      expect(ten.tools.length + ten.notFound.length).toBe(10);
    });

    it('platform_list_tools lists permitted tools, optionally by module', async () => {
      const all = await harness.call(org.apiKey, 'platform_list_tools', {});
      expect(all.count).toBe(allTools().filter((t) => t.scope !== OPERATOR_SCOPE).length);
      expect(all.modules).toEqual(expect.arrayContaining(['people', 'platform']));
      const people = await harness.call(org.apiKey, 'platform_list_tools', { module: 'people' });
      expect(people.tools.length).toBeGreaterThan(0);
      expect(people.count).toBe(people.tools.length);
      expect(people.tools.every((t: any) => t.module === 'people')).toBe(true);
      expect(people.tools.map((t: any) => t.name).sort()).toEqual(allTools().filter((t) => t.module === 'people').map((t) => t.name).sort());

      const narrow = await harness.createKey(org.orgId, ['platform:read', 'people:read']);
      const narrowPeople = await harness.call(narrow.apiKey, 'platform_list_tools', { module: 'people' });
      expect(narrowPeople.tools.every((t: any) => t.scope === 'people:read')).toBe(true);

      const unknown = await harness.invoke(org.apiKey, 'platform_list_tools', { module: 'astrology' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error!.code).toBe('validation_failed');
    });

    it('platform_search_tools returns only tools the caller may use', async () => {
      const out = await harness.call(org.apiKey, 'platform_search_tools', { query: 'create a new contact' });
      expect(out.tools[0]).toBe('people_create_contact');
      const narrow = await harness.createKey(org.orgId, ['platform:read', 'people:read']);
      const narrowOut = await harness.call(narrow.apiKey, 'platform_search_tools', { query: 'create a new contact' });
      expect(narrowOut.tools).not.toContain('people_create_contact');
      expect(narrowOut.tools.length).toBeGreaterThan(0);
    });

    // By words alone "remove family relationship" wins (record, dad, relationship all match it too).
    it('platform_search_tools reads the request\'s meaning, and says so', async () => {
      const out = await harness.call(org.apiKey, 'platform_search_tools', { query: "record that Sam is Lucy's dad", limit: 3 });
      expect(out.tools[0]).toBe('people_add_family_relationship');
      expect(out.results[0].why).toMatch(/^matched .*; close in meaning to "/);
    });

    it('platform_session_tools describes the credential', async () => {
      const key = await harness.createKey(org.orgId, ['platform:read', 'people:read'], 'volunteer');
      const out = await harness.call(key.apiKey, 'platform_session_tools', {});
      expect(out).toMatchObject({ credentialKind: 'api_key', intent: null, role: 'volunteer' });
      expect(out.scopes.sort()).toEqual(['people:read', 'platform:read']);
      expect(out.tools.sort()).toEqual(permittedTools(['platform:read', 'people:read']).map((t) => t.name).sort());
      expect(out.count).toBe(out.tools.length);
    });

    it('platform_overview counts contacts, follow-ups and tools', async () => {
      const fresh = await harness.createOrg({ name: 'Overview Chapel', country: 'US' });
      const a = await harness.call(fresh.apiKey, 'people_create_contact', { email: 'a@example.org', status: 'subscribed', membershipStatus: 'member' });
      await harness.call(fresh.apiKey, 'people_create_contact', { email: 'b@example.org', status: 'subscribed' });
      const c = await harness.call(fresh.apiKey, 'people_create_contact', { email: 'c@example.org' });
      await harness.call(fresh.apiKey, 'people_add_note', { contactId: a.contact.id, content: 'Call back', followUpDate: '12/25/2030' });
      await harness.call(fresh.apiKey, 'people_add_note', { contactId: a.contact.id, content: 'No follow-up' });
      await harness.call(fresh.apiKey, 'people_add_note', { contactId: c.contact.id, content: 'Also call', followUpDate: '2030-01-01' });
      await harness.call(fresh.apiKey, 'people_delete_contact', { contactId: c.contact.id });

      const out = await harness.call(fresh.apiKey, 'platform_overview', {});
      expect(out.organisation).toEqual({ id: fresh.orgId, name: 'Overview Chapel', country: 'US', dateFormat: 'MDY', plan: 'starter' });
      expect(out.contacts.total).toBe(2);
      expect(out.contacts.byStatus).toEqual({ subscribed: 2 });
      expect(out.contacts.byMembershipStatus).toEqual({ member: 1, unknown: 1 });
      expect(out.openFollowUps).toBe(1);
      expect(out.toolsAvailable).toBe(allTools().filter((t) => t.scope !== OPERATOR_SCOPE).length);
      expect(out.modules).toEqual(expect.arrayContaining(['people', 'platform']));
      expect(out.usage.find((u: any) => u.feature === 'contacts')).toMatchObject({ used: 2, limit: 500, remaining: 498, period: 'standing' });

      const narrow = await harness.createKey(fresh.orgId, ['platform:read']);
      const narrowOut = await harness.call(narrow.apiKey, 'platform_overview', {});
      expect(narrowOut.toolsAvailable).toBe(permittedTools(['platform:read']).length);
    });
  });

  describe('health', () => {
    it('GET /healthz answers without credentials', async () => {
      const response = await get('/healthz');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
    });

    it('GET /readyz checks the database, Temporal and the payload key', async () => {
      const response = await get('/readyz');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ready', checks: { database: true, temporal: true, payloadKey: true } });
    });

    it('unknown endpoints are a JSON 404', async () => {
      const response = await get('/api/agent/nothing-here', org.apiKey);
      expect(response.status).toBe(404);
      expect(((await response.json()) as any).ok).toBe(false);
    });
  });
});
