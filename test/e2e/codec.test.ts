import { randomBytes, randomUUID } from 'node:crypto';
import { ALL_SCOPES } from '../../core/scopes';
import { scopesAllowedForRole } from '../../core/roles';
import { createSession } from '../../kernel/oauth/sessions';
import { SESSION_COOKIE } from '../../api/oauth/session-cookie';
import { Harness, type TestOrg } from '../helpers/harness';

/**
 * The operators' codec endpoint, against payloads taken from a real workflow
 * history: an owner reads their own organisation's, nobody else reads anything.
 */

interface WirePayload {
  metadata?: Record<string, string>;
  data?: string;
}

const UI_ORIGIN = 'http://127.0.0.1:8233';
const NOTE = `Disclosed a safeguarding concern, reference ${randomBytes(6).toString('hex').replace(/[0-9]/g, 'q')}`;
const b64 = (text: string) => Buffer.from(text).toString('base64');
const fromB64 = (value: string | undefined) => Buffer.from(value ?? '', 'base64').toString('utf8');

/** Every encrypted payload anywhere in a raw history, in the codec wire format. */
function encryptedPayloads(value: unknown, found: WirePayload[] = []): WirePayload[] {
  if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return found;
  if (Array.isArray(value)) {
    for (const inner of value) encryptedPayloads(inner, found);
    return found;
  }
  const record = value as { metadata?: Record<string, Uint8Array>; data?: Uint8Array };
  if (record.metadata?.encoding && Buffer.from(record.metadata.encoding).toString() === 'binary/encrypted') {
    found.push({
      metadata: Object.fromEntries(Object.entries(record.metadata).map(([key, bytes]) => [key, Buffer.from(bytes).toString('base64')])),
      data: Buffer.from(record.data ?? []).toString('base64'),
    });
    return found;
  }
  for (const inner of Object.values(record)) encryptedPayloads(inner, found);
  return found;
}

describe('Temporal codec endpoint for operators', () => {
  let harness: Harness;
  let orgA: TestOrg;
  let orgB: TestOrg;
  let history: WirePayload[];
  let endpoint: string;

  beforeAll(async () => {
    harness = await Harness.start();
    endpoint = `${harness.url}/api/temporal-codec`;
    orgA = await harness.createOrg({ name: 'Codec Chapel' });
    orgB = await harness.createOrg({ name: 'Other Abbey' });
    const contact = await harness.call(orgA.apiKey, 'people_create_contact', { firstName: 'Ottoline', lastName: 'Codec' });
    const key = `codec-${randomUUID()}`;
    const { body } = await harness.invoke(orgA.apiKey, 'people_add_note', { contactId: contact.contact.id, content: NOTE, confidentialityLevel: 'red' }, { 'Idempotency-Key': key });
    expect(body).toEqual(expect.objectContaining({ ok: true }));
    // The raw history as Temporal stores it (the gRPC service applies no codec).
    const raw = await harness.temporal.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId: `call-${orgA.orgId}-${key}` } });
    history = encryptedPayloads(raw.history);
  });

  afterAll(async () => {
    await harness?.close();
  });

  async function post(path: 'decode' | 'encode', payloads: WirePayload[], headers: Record<string, string> = {}) {
    const response = await fetch(`${endpoint}/${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers }, body: JSON.stringify({ payloads }),
    });
    return { status: response.status, headers: response.headers, body: await response.json() as any };
  }

  const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

  it('names the organisation on every payload of the history, which holds no plaintext', () => {
    expect(history.length).toBeGreaterThanOrEqual(3);
    for (const payload of history) expect(fromB64(payload.metadata!['steward-org'])).toBe(orgA.orgId);
    expect(JSON.stringify(history)).not.toContain(b64(NOTE).slice(0, 20));
  });

  it('decodes every payload of its own organisation for the owner', async () => {
    const { status, body } = await post('decode', history, bearer(orgA.apiKey));
    expect(status).toBe(200);
    expect(body.payloads).toHaveLength(history.length);
    for (const payload of body.payloads as WirePayload[]) {
      expect(['json/plain', 'binary/null']).toContain(fromB64(payload.metadata?.encoding));
    }
    const texts = (body.payloads as WirePayload[]).map((p) => fromB64(p.data));
    const plan = texts.map((t) => { try { return JSON.parse(t); } catch { return undefined; } }).find((v) => v?.tool === 'people_add_note');
    expect(plan.args.content).toBe(NOTE);
    expect(plan.principal.orgId).toBe(orgA.orgId);
  });

  it('gives another organisation\'s owner the payloads back unchanged, still encrypted', async () => {
    const { status, body } = await post('decode', history, bearer(orgB.apiKey));
    expect(status).toBe(200);
    expect(body.payloads).toEqual(history);
    expect(JSON.stringify(body)).not.toContain(b64(NOTE).slice(0, 20));
  });

  it('attributes an outreach workflow too, whose id does not name the organisation', async () => {
    const contact = await harness.call(orgA.apiKey, 'people_create_contact', { firstName: 'Perpetua', lastName: 'Codec', email: 'perpetua@example.org' });
    const { item } = await harness.call(orgA.apiKey, 'people_create_outreach', { contactId: contact.contact.id, channel: 'email', subject: 'Thinking of you', body: 'Dear Perpetua, we miss you.' });
    await harness.call(orgA.apiKey, 'people_edit_outreach', { outreachId: item.id, body: 'Dear Perpetua, we are praying for you.' });
    await harness.call(orgA.apiKey, 'people_decline_outreach', { outreachId: item.id, reason: 'Phoned instead' });
    const raw = await harness.temporal.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId: `outreach-${item.id}` } });
    const payloads = encryptedPayloads(raw.history);
    expect(payloads.length).toBeGreaterThanOrEqual(4);
    for (const payload of payloads) expect(fromB64(payload.metadata!['steward-org'])).toBe(orgA.orgId);
    const decoded = await post('decode', payloads, bearer(orgA.apiKey));
    expect(JSON.stringify(decoded.body.payloads.map((p: WirePayload) => fromB64(p.data)))).toContain('we are praying for you');
  });

  it('refuses staff, an admin without safeguarding, anonymous callers and unknown keys', async () => {
    // Staff hold every scope their role allows (all but audit's).
    const staff = await harness.createKey(orgA.orgId, scopesAllowedForRole('staff', true), 'staff', { safeguarding: true });
    const refusedStaff = await post('decode', history, bearer(staff.apiKey));
    expect(refusedStaff.status).toBe(403);
    expect(refusedStaff.body).toEqual({ ok: false, error: expect.objectContaining({ code: 'forbidden' }) });

    const admin = await harness.createKey(orgA.orgId, ALL_SCOPES.filter((scope) => scope !== 'people:safeguarding'), 'admin', { safeguarding: false });
    const refusedAdmin = await post('decode', history, bearer(admin.apiKey));
    expect(refusedAdmin.status).toBe(403);
    expect(refusedAdmin.body.error.code).toBe('insufficient_scope');
    expect(refusedAdmin.body.error.details.requiredScope).toBe('people:safeguarding');

    // An owner's key narrowed to a few scopes reads nothing either.
    const narrow = await harness.createKey(orgA.orgId, ['people:read'], 'owner', { safeguarding: true });
    expect((await post('decode', history, bearer(narrow.apiKey))).status).toBe(403);

    for (const headers of [{}, bearer('sk_live_not_a_real_key'), { authorization: 'Basic abc' }]) {
      const anonymous = await post('decode', history, headers);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
      expect(anonymous.body).toEqual({ ok: false, error: expect.objectContaining({ code: 'unauthorized' }) });
      expect(JSON.stringify(anonymous.body)).not.toContain(b64(NOTE).slice(0, 20));
    }
  });

  it('decodes for an owner signed in to the dashboard, when the UI sends the cookie', async () => {
    const owner = await harness.createMember(orgA.orgId, { role: 'owner', safeguarding: true });
    const session = await createSession(harness.pool, owner.userId);
    const cookie = `${SESSION_COOKIE}=${session.token}`;
    const fromUi = await post('decode', history, { cookie, origin: UI_ORIGIN });
    expect(fromUi.status).toBe(200);
    expect(fromUi.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(fromUi.headers.get('access-control-allow-credentials')).toBe('true');
    expect(JSON.stringify(fromUi.body.payloads.map((p: WirePayload) => fromB64(p.data)))).toContain(NOTE);

    // Another site's page cannot ride on the cookie.
    expect((await post('decode', history, { cookie, origin: 'http://evil.example' })).status).toBe(401);

    const staff = await harness.createMember(orgA.orgId, { role: 'staff', safeguarding: true });
    const staffSession = await createSession(harness.pool, staff.userId);
    expect((await post('decode', history, { cookie: `${SESSION_COOKIE}=${staffSession.token}`, origin: UI_ORIGIN })).status).toBe(403);
  });

  it('answers the CORS preflight for the configured UI origin only', async () => {
    const preflight = (origin: string) => fetch(`${endpoint}/decode`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace,authorization' },
    });
    const allowed = await preflight(UI_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    for (const header of ['content-type', 'x-namespace', 'authorization']) expect(allowed.headers.get('access-control-allow-headers')).toContain(header);

    const other = await preflight('http://evil.example');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // Nor does a real request from another origin get a readable answer.
    const cross = await post('decode', history, { ...bearer(orgA.apiKey), origin: 'http://evil.example' });
    expect(cross.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('encodes for the caller\'s organisation, as an operator\'s payload only that organisation reads back', async () => {
    const plain = { metadata: { encoding: b64('json/plain') }, data: b64(JSON.stringify({ hello: 'operator' })) };
    const encoded = await post('encode', [plain], bearer(orgA.apiKey));
    expect(encoded.status).toBe(200);
    const [sealed] = encoded.body.payloads as WirePayload[];
    expect(fromB64(sealed.metadata!.encoding)).toBe('binary/encrypted');
    expect(fromB64(sealed.metadata!['steward-org'])).toBe(orgA.orgId);
    expect(fromB64(sealed.metadata!['steward-source'])).toBe('operator');
    expect((await post('decode', [sealed], bearer(orgA.apiKey))).body.payloads).toEqual([plain]);
    expect((await post('decode', [sealed], bearer(orgB.apiKey))).body.payloads).toEqual([sealed]);
    expect((await post('encode', [plain])).status).toBe(401);
  });

  it('refuses malformed bodies, too many payloads and other methods', async () => {
    const notPayloads = await fetch(`${endpoint}/decode`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(orgA.apiKey) }, body: '{"nope":1}' });
    expect(notPayloads.status).toBe(400);
    expect((await notPayloads.json() as any).error.code).toBe('invalid_request');
    const tooMany = await post('decode', Array.from({ length: 1001 }, () => ({ data: '' })), bearer(orgA.apiKey));
    expect(tooMany.status).toBe(400);
    const big = await fetch(`${endpoint}/decode`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...bearer(orgA.apiKey) }, body: JSON.stringify({ payloads: [{ data: 'A'.repeat(5 * 1024 * 1024) }] }),
    });
    expect(big.status).toBe(413);
    expect((await fetch(`${endpoint}/decode`, { method: 'GET' })).status).toBe(405);
  });
});
