import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { withTransaction, withTenantTransaction } from '../../../db/pool';
import { withdrawConsent } from '../audience/consent';
import { applyInboundKeyword, checkRecipient, findSenderOrg, recordInbound, suppressAddress } from '../audience/services';
import { setSenderDnsResolver, type TxtResolver } from '../audience/senders';
import { channelsConsentFromContacts } from '../audience/migrations/2026.11.24T10.00.01.channels-consent-from-contacts';
import { audiencePart } from '../audience/part';
import { loadDeliveryContact } from '../../people/outreach';
import { placeCrisisHold } from '../../people/pastoral/care/crisis';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * The channels audience end to end over MCP: consent as evidence (recorded, superseded, withdrawn,
 * never deleted), suppressions (manual, STOP, lifted only on fresh consent), every sendability
 * reason, quiet hours in the recipient's zone, the WhatsApp window, senders and DNS verification,
 * people's old consent fields mapping in, and other organisations' ids behaving as missing.
 */
describe('channels audience: consent, suppression, sendability, senders', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let owner: McpClient;
  let otherMcp: McpClient;

  const contact = async (fields: Record<string, unknown>) =>
    (await mcpCall(owner, 'people_create_contact', { firstName: 'Test', lastName: `Person ${Math.random().toString(36).slice(2, 8)}`, ...fields })).contact.id as string;
  const sendability = (args: Record<string, unknown>) => mcpCall(owner, 'channels_check_sendability', args);
  const evidence = { source: 'welcome card, 22 Nov', wording: 'Yes, send me news of events and appeals by email.' };

  beforeAll(async () => {
    // Its own stack: it sets the sender DNS resolver in this process and counts locks across the database.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'St Anne' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    owner = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
  });

  afterAll(async () => {
    setSenderDnsResolver(null);
    await otherMcp?.close();
    await owner?.close();
    await harness?.close();
  });

  describe('consent as evidence', () => {
    let margaret: string;
    beforeAll(async () => {
      margaret = await contact({ firstName: 'Margaret', email: 'Margaret.Hill@example.org', phone: '07700 900123' });
    });

    it('no consent on record: marketing email is refused with no_consent; service email may go', async () => {
      const refused = await sendability({ contactId: margaret, channel: 'email', purpose: 'marketing' });
      expect(refused).toMatchObject({ allowed: false, reason: 'no_consent', address: null });
      expect(refused.hint).toMatch(/channels_record_consent/);
      const service = await sendability({ contactId: margaret, channel: 'email', purpose: 'service' });
      expect(service).toMatchObject({ allowed: true, reason: null, address: 'margaret.hill@example.org' });
    });

    it('records consent with its evidence; a newer one supersedes, withdrawal keeps the history', async () => {
      const first = await mcpCall(owner, 'channels_record_consent', {
        contactId: margaret, channel: 'email', purpose: 'marketing', ...evidence, capturedAt: '2026-11-22T10:00:00Z',
      });
      expect(first.consent).toMatchObject({ basis: 'consent', state: 'active', wording: evidence.wording, source: evidence.source, capturedAt: '2026-11-22T10:00:00.000Z' });
      expect(first.addressSuppressed).toBe(false);
      expect(await sendability({ contactId: margaret, channel: 'email', purpose: 'marketing' })).toMatchObject({ allowed: true });
      // people's contact field follows the record
      expect((await mcpCall(owner, 'people_get_contact', { contactId: margaret })).contact.status).toBe('subscribed');

      const second = await mcpCall(owner, 'channels_record_consent', { contactId: margaret, channel: 'email', purpose: 'marketing', source: 'website form', wording: 'Email me the newsletter' });
      const active = await mcpCall(owner, 'channels_list_consents', { contactId: margaret });
      expect(active.consents.map((c: any) => c.id)).toEqual([second.consent.id]);

      const withdrawn = await mcpCall(owner, 'channels_withdraw_consent', { contactId: margaret, channel: 'email', source: 'phone call to the office' });
      expect(withdrawn.count).toBe(1);
      expect(withdrawn.withdrawn[0]).toMatchObject({ id: second.consent.id, state: 'withdrawn', withdrawalSource: 'phone call to the office' });
      const history = await mcpCall(owner, 'channels_list_consents', { contactId: margaret, includeHistory: true });
      expect(history.consents.map((c: any) => [c.id, c.state]).sort()).toEqual([[first.consent.id, 'superseded'], [second.consent.id, 'withdrawn']].sort());
      expect(await sendability({ contactId: margaret, channel: 'email', purpose: 'marketing' })).toMatchObject({ allowed: false, reason: 'no_consent' });
      expect((await mcpCall(owner, 'people_get_contact', { contactId: margaret })).contact.status).toBe('non_subscribed');
    });

    it('the charity soft opt-in covers charitable-purpose email, not marketing, and is refused for WhatsApp', async () => {
      await mcpCall(owner, 'channels_record_consent', { contactId: margaret, channel: 'sms', purpose: 'charitable_purpose', basis: 'charitable_soft_opt_in', ...evidence });
      expect(await sendability({ contactId: margaret, channel: 'sms', purpose: 'charitable_purpose' })).toMatchObject({ allowed: true, address: '+447700900123' });
      expect(await sendability({ contactId: margaret, channel: 'sms', purpose: 'marketing' })).toMatchObject({ allowed: false, reason: 'no_consent' });
      const refusal = await mcpRefusal(owner, 'channels_record_consent', { contactId: margaret, channel: 'whatsapp', purpose: 'charitable_purpose', basis: 'charitable_soft_opt_in', ...evidence });
      expect(refusal.code).toBe('validation_failed');
      const marketing = await mcpRefusal(owner, 'channels_record_consent', { contactId: margaret, channel: 'email', purpose: 'marketing', basis: 'charitable_soft_opt_in', ...evidence });
      expect(marketing.issues[0].path).toBe('basis');
    });

    it('concurrent recordings of one consent leave exactly one active record', async () => {
      const person = await contact({ email: 'parallel@example.org' });
      await Promise.all(Array.from({ length: 6 }, (_, i) => mcpCall(owner, 'channels_record_consent', {
        contactId: person, channel: 'email', purpose: 'marketing', source: `form ${i}`, wording: 'News by email',
      })));
      expect((await mcpCall(owner, 'channels_list_consents', { contactId: person })).consents).toHaveLength(1);
      expect((await mcpCall(owner, 'channels_list_consents', { contactId: person, includeHistory: true })).consents).toHaveLength(6);
    });
  });

  describe('people\'s consent fields map into consent and suppression', () => {
    it('status unsubscribed suppresses the email address; subscribed again lifts it', async () => {
      const id = await contact({ email: 'Gone@Example.org', status: 'unsubscribed' });
      expect(await sendability({ contactId: id, channel: 'email', purpose: 'service' })).toMatchObject({ allowed: false, reason: 'suppressed' });
      const listed = await mcpCall(owner, 'channels_list_suppressions', { address: 'gone@example.org' });
      expect(listed.suppressions).toEqual([expect.objectContaining({ channel: 'email', address: 'gone@example.org', reason: 'unsubscribe', source: 'people.contact' })]);
      await mcpCall(owner, 'people_update_contact', { contactId: id, status: 'subscribed' });
      expect(await sendability({ contactId: id, channel: 'email', purpose: 'marketing' })).toMatchObject({ allowed: true });
    });

    it('status bounced suppresses as a hard bounce; whatsappConsent becomes WhatsApp consent and back', async () => {
      const bounced = await contact({ email: 'bounce@example.org', status: 'bounced' });
      expect((await mcpCall(owner, 'channels_list_suppressions', { address: 'bounce@example.org' })).suppressions[0].reason).toBe('hard_bounce');
      expect(await sendability({ contactId: bounced, channel: 'email', purpose: 'service' })).toMatchObject({ reason: 'suppressed' });

      const wa = await contact({ phone: '+447700900555', whatsappConsent: true });
      const consents = await mcpCall(owner, 'channels_list_consents', { contactId: wa, channel: 'whatsapp' });
      expect(consents.consents).toEqual([expect.objectContaining({ purpose: 'service', basis: 'consent', source: 'people.contact' })]);
      await withTenantTransaction(harness.pool, org.orgId, (db) => recordInbound(db, org.orgId, { channel: 'whatsapp', from: '+447700900555', at: new Date() }));
      expect(await sendability({ contactId: wa, channel: 'whatsapp', purpose: 'service' })).toMatchObject({ allowed: true });
      await mcpCall(owner, 'people_update_contact', { contactId: wa, whatsappConsent: false });
      expect(await sendability({ contactId: wa, channel: 'whatsapp', purpose: 'service' })).toMatchObject({ allowed: false, reason: 'no_consent' });
    });

    it('the bulk WhatsApp opt-in records WhatsApp consent for each contact it opts in', async () => {
      const first = await contact({ phone: '+447700900561' });
      const second = await contact({ phone: '+447700900562' });
      const result = await mcpCall(owner, 'people_bulk_opt_in_whatsapp', { contactIds: [first, second] });
      expect(result.optedIn).toBe(2);
      for (const id of [first, second]) {
        expect((await mcpCall(owner, 'channels_list_consents', { contactId: id, channel: 'whatsapp' })).consents)
          .toEqual([expect.objectContaining({ purpose: 'service', source: 'people.bulk_opt_in_whatsapp', state: 'active' })]);
      }
      // Repeating it opts nobody in again and records nothing more.
      expect((await mcpCall(owner, 'people_bulk_opt_in_whatsapp', { contactIds: [first] })).optedIn).toBe(0);
      expect((await mcpCall(owner, 'channels_list_consents', { contactId: first, includeHistory: true })).consents).toHaveLength(1);
    });
  });

  describe('sendability reasons', () => {
    it('no_address: no phone for SMS, an unreadable phone number', async () => {
      const noPhone = await contact({ email: 'nophone@example.org' });
      expect(await sendability({ contactId: noPhone, channel: 'sms', purpose: 'service' })).toMatchObject({ allowed: false, reason: 'no_address' });
      const garbled = await contact({ phone: '12345' });
      const refused = await sendability({ contactId: garbled, channel: 'sms', purpose: 'service' });
      expect(refused).toMatchObject({ reason: 'no_address' });
      expect(refused.message).toMatch(/E\.164/);
    });

    it('suppressed: a manual suppression blocks every purpose; lifting needs consent captured after it', async () => {
      const id = await contact({ phone: '+447700900777' });
      const added = await mcpCall(owner, 'channels_add_suppression', { channel: 'sms', address: '07700 900777', note: 'asked by phone' });
      expect(added).toMatchObject({ created: true, suppression: { address: '+447700900777', reason: 'manual' } });
      expect((await mcpCall(owner, 'channels_add_suppression', { channel: 'sms', address: '+447700900777' })).created).toBe(false);
      expect(await sendability({ contactId: id, channel: 'sms', purpose: 'service' })).toMatchObject({ allowed: false, reason: 'suppressed' });

      const stale = await mcpRefusal(owner, 'channels_remove_suppression', {
        suppressionId: added.suppression.id, consent: { contactId: id, purpose: 'service', ...evidence, capturedAt: '2020-01-01T00:00:00Z' },
      });
      expect(stale).toMatchObject({ code: 'validation_failed' });
      expect(stale.issues[0].path).toBe('consent.capturedAt');
      const stranger = await contact({ phone: '+447700900778' });
      expect((await mcpRefusal(owner, 'channels_remove_suppression', { suppressionId: added.suppression.id, consent: { contactId: stranger, purpose: 'service', ...evidence } })).code).toBe('validation_failed');

      const lifted = await mcpCall(owner, 'channels_remove_suppression', { suppressionId: added.suppression.id, consent: { contactId: id, purpose: 'marketing', ...evidence } });
      expect(lifted.suppression.liftedAt).not.toBeNull();
      expect(lifted.suppression.liftEvidence).toContain(lifted.consent.id);
      expect(await sendability({ contactId: id, channel: 'sms', purpose: 'marketing' })).toMatchObject({ allowed: true });
      const all = await mcpCall(owner, 'channels_list_suppressions', { address: '+447700900777', includeLifted: true });
      expect(all.suppressions).toHaveLength(1);
      expect((await mcpCall(owner, 'channels_list_suppressions', { address: '+447700900777' })).suppressions).toHaveLength(0);
      expect((await mcpRefusal(owner, 'channels_remove_suppression', { suppressionId: added.suppression.id, consent: { contactId: id, purpose: 'service', ...evidence } })).code).toBe('conflict');
    });

    it('concurrent suppressions of one address make one record', async () => {
      const results = await Promise.all(Array.from({ length: 5 }, () => mcpCall(owner, 'channels_add_suppression', { channel: 'email', address: 'Race@Example.org' })));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.suppression.id)).size).toBe(1);
    });

    it('suppressing an email address shows on the contacts holding it: unsubscribed, or bounced for a hard bounce', async () => {
      const manual = await contact({ email: 'Manual@Example.org', status: 'subscribed' });
      await mcpCall(owner, 'channels_add_suppression', { channel: 'email', address: 'manual@example.org' });
      expect((await mcpCall(owner, 'people_get_contact', { contactId: manual })).contact.status).toBe('unsubscribed');
      const bounced = await contact({ email: 'hard@example.org', status: 'subscribed' });
      await withTransaction(harness.pool, (db) => suppressAddress(db, org.orgId, { channel: 'email', address: 'Hard@Example.org', reason: 'hard_bounce', source: 'email_events' }));
      expect((await mcpCall(owner, 'people_get_contact', { contactId: bounced })).contact.status).toBe('bounced');
    });

    it('crisis_hold wins over everything, even a consenting and reachable contact', async () => {
      const id = await contact({ email: 'held@example.org' });
      await mcpCall(owner, 'channels_record_consent', { contactId: id, channel: 'email', purpose: 'marketing', ...evidence });
      await withTransaction(harness.pool, (db) => placeCrisisHold(db, org.orgId, id, ['severe_distress'], null, true));
      const refused = await sendability({ contactId: id, channel: 'email', purpose: 'service' });
      expect(refused).toMatchObject({ allowed: false, reason: 'crisis_hold' });
    });

    it('window_closed: free-form WhatsApp outside 24 h of their last message, with the hint to use a template', async () => {
      const id = await contact({ phone: '+447700900888', whatsappConsent: true });
      const closed = await sendability({ contactId: id, channel: 'whatsapp', purpose: 'service' });
      expect(closed).toMatchObject({ allowed: false, reason: 'window_closed' });
      expect(closed.hint).toMatch(/template/i);
      expect(await mcpCall(owner, 'channels_get_whatsapp_window', { contactId: id })).toMatchObject({ open: false, lastInboundAt: null, address: '+447700900888' });
      const wroteAt = new Date(Date.now() - 23 * 3600_000);
      await withTenantTransaction(harness.pool, org.orgId, (db) => recordInbound(db, org.orgId, { channel: 'whatsapp', from: '+447700900888', at: wroteAt }));
      const window = await mcpCall(owner, 'channels_get_whatsapp_window', { contactId: id });
      expect(window).toMatchObject({ open: true, lastInboundAt: wroteAt.toISOString(), closesAt: new Date(wroteAt.getTime() + 24 * 3600_000).toISOString() });
      expect(await sendability({ contactId: id, channel: 'whatsapp', purpose: 'service' })).toMatchObject({ allowed: true });
      // 25 hours on, the same check refuses again (checked through the service with an explicit clock).
      const later = await withTenantTransaction(harness.pool, org.orgId, (db) => checkRecipient(db, org.orgId, {
        contactId: id, channel: 'whatsapp', purpose: 'service', now: new Date(wroteAt.getTime() + 25 * 3600_000), freeForm: true,
      }));
      expect(later).toMatchObject({ ok: false, reason: 'window_closed' });
    });

    it('windows older than a week are purged by maintenance; fresh ones stay', async () => {
      await withTenantTransaction(harness.pool, org.orgId, async (db) => {
        await recordInbound(db, org.orgId, { channel: 'whatsapp', from: '+447700900901', at: new Date(Date.now() - 8 * 86_400_000) });
        await recordInbound(db, org.orgId, { channel: 'whatsapp', from: '+447700900902', at: new Date() });
      });
      const [rule] = audiencePart.retention!;
      expect(await rule.purge(harness.pool)).toBeGreaterThanOrEqual(1);
      const left = await harness.pool.query("SELECT address FROM channel_inbound_windows WHERE org_id = $1 AND address LIKE '+44770090090%'", [org.orgId]);
      expect(left.rows.map((row) => row.address)).toEqual(['+447700900902']);
    });

    it('no_approved_template: a template id with no active version', async () => {
      const id = await contact({ phone: '+447700900999', whatsappConsent: true });
      const refused = await sendability({ contactId: id, channel: 'whatsapp', purpose: 'service', templateId: '00000000-0000-4000-8000-000000000001' });
      expect(refused).toMatchObject({ allowed: false, reason: 'no_approved_template' });
    });

    it('allowance: no messaging credits left', async () => {
      const id = await contact({ phone: '+447700900321' });
      await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'messaging_credits', 0)", [other.orgId]);
      const theirs = (await mcpCall(otherMcp, 'people_create_contact', { firstName: 'Out', lastName: 'Ofcredit', phone: '+447700900321' })).contact.id;
      expect(await mcpCall(otherMcp, 'channels_check_sendability', { contactId: theirs, channel: 'sms', purpose: 'service' })).toMatchObject({ allowed: false, reason: 'allowance' });
      expect(await sendability({ contactId: id, channel: 'sms', purpose: 'service' })).toMatchObject({ allowed: true });
    });

    it('quiet_hours: deferred (never dropped) until the end of quiet hours in the recipient\'s zone', async () => {
      const zone = 'America/New_York';
      const local = DateTime.now().setZone(zone);
      const start = local.minus({ hours: 1 }).toFormat('HH:mm');
      const end = local.plus({ hours: 2 }).toFormat('HH:mm');
      const settings = await mcpCall(owner, 'channels_update_settings', { quietHours: { enabled: true, start, end }, timeZone: zone });
      expect(settings.settings).toMatchObject({ quietHours: { enabled: true, start, end }, timeZone: zone });
      try {
        const id = await contact({ email: 'night@example.org' });
        const deferred = await sendability({ contactId: id, channel: 'email', purpose: 'service' });
        expect(deferred).toMatchObject({ allowed: false, reason: 'quiet_hours', timeZone: zone, address: 'night@example.org' });
        const resumes = DateTime.fromISO(deferred.resumesAt).setZone(zone);
        expect(resumes.toFormat('HH:mm')).toBe(end);
        expect(resumes > local).toBe(true);
        expect(resumes.diff(local, 'hours').hours).toBeLessThanOrEqual(2.1);
      } finally {
        await mcpCall(owner, 'channels_update_settings', { quietHours: { enabled: false }, timeZone: 'Europe/London' });
      }
      expect((await mcpRefusal(owner, 'channels_update_settings', { timeZone: 'Mars/Olympus' })).code).toBe('validation_failed');
      expect((await mcpRefusal(owner, 'channels_update_settings', { quietHours: { start: '09:00', end: '09:00' } })).code).toBe('validation_failed');
    });
  });

  describe('inbound keywords', () => {
    it('STOP suppresses the number, START lifts only that, HELP answers, a sentence is not a keyword', async () => {
      const id = await contact({ phone: '+447700900444' });
      const act = (text: string) => withTenantTransaction(harness.pool, org.orgId, (db) => applyInboundKeyword(db, org.orgId, { channel: 'sms', from: '+447700900444', text, at: new Date() }));
      expect(await act('please stop sending these')).toEqual({ action: 'none' });
      expect(await sendability({ contactId: id, channel: 'sms', purpose: 'service' })).toMatchObject({ allowed: true });
      const stopped = await act('  Stop ');
      expect(stopped.action).toBe('stopped');
      expect(stopped.reply).toMatch(/START/);
      expect(await sendability({ contactId: id, channel: 'sms', purpose: 'service' })).toMatchObject({ allowed: false, reason: 'suppressed' });
      expect((await mcpCall(owner, 'channels_list_suppressions', { channel: 'sms', reason: 'stop_keyword' })).suppressions.map((s: any) => s.address)).toContain('+447700900444');
      expect(await act('HELP')).toMatchObject({ action: 'help', reply: expect.stringContaining('St Anne') });
      expect((await act('unstop')).action).toBe('resubscribed');
      expect(await sendability({ contactId: id, channel: 'sms', purpose: 'service' })).toMatchObject({ allowed: true });

      // START does not lift a suppression made for another reason.
      await withTenantTransaction(harness.pool, org.orgId, (db) => suppressAddress(db, org.orgId, { channel: 'sms', address: '+447700900444', reason: 'complaint', source: 'test' }));
      await act('START');
      expect(await sendability({ contactId: id, channel: 'sms', purpose: 'service' })).toMatchObject({ allowed: false, reason: 'suppressed' });
    });
  });

  describe('a STOP cannot slip between a dispatch\'s check and its claim', () => {
    it('a STOP arriving while a locked check\'s transaction is open waits for it, and the next check sees the STOP', async () => {
      const id = await contact({ phone: '+447700900333' });
      const dispatch = await harness.pool.connect();
      let stopDone = false;
      try {
        await dispatch.query('BEGIN');
        const first = await checkRecipient(dispatch, org.orgId, { contactId: id, channel: 'sms', purpose: 'service', now: new Date(), lock: true });
        expect(first.ok).toBe(true);
        const stop = withTransaction(harness.pool, (db) => applyInboundKeyword(db, org.orgId, { channel: 'sms', from: '+447700900333', text: 'STOP', at: new Date() }))
          .then((result) => { stopDone = true; return result; });
        // Wait (by state, not by time) until the STOP's transaction is blocked on the dispatch's lock.
        for (let waiting = 0; waiting === 0;) {
          waiting = (await harness.pool.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)).rows[0].n;
        }
        expect(stopDone).toBe(false);
        await dispatch.query('COMMIT');
        expect((await stop).action).toBe('stopped');
      } finally {
        dispatch.release();
      }
      const next = await withTransaction(harness.pool, (db) => checkRecipient(db, org.orgId, { contactId: id, channel: 'sms', purpose: 'service', now: new Date(), lock: true }));
      expect(next).toMatchObject({ ok: false, reason: 'suppressed' });
    });
  });

  describe('a bounce or a consent change arriving mid-check waits for it, never deadlocks with it', () => {
    /** Waits (by state, not by time) until some transaction of this database is blocked on a lock. */
    async function untilBlocked(): Promise<void> {
      for (let waiting = 0; waiting === 0;) {
        waiting = (await harness.pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows[0].n;
      }
    }

    it('a hard bounce after a dispatch has read the contact: the dispatch takes its address lock, then the bounce goes', async () => {
      const id = await contact({ email: 'mid-check@example.org' });
      const dispatch = await harness.pool.connect();
      try {
        await dispatch.query('BEGIN');
        // The dispatch has read the contact (FOR SHARE) and is about to lock the address.
        await loadDeliveryContact(dispatch, org.orgId, id, true);
        const bounce = withTransaction(harness.pool, (db) => suppressAddress(db, org.orgId, {
          channel: 'email', address: 'mid-check@example.org', reason: 'hard_bounce', source: 'email_events_webhook',
        }));
        await untilBlocked();
        const check = await checkRecipient(dispatch, org.orgId, { contactId: id, channel: 'email', purpose: 'service', now: new Date(), lock: true });
        expect(check.ok).toBe(true);
        await dispatch.query('COMMIT');
        expect((await bounce).created).toBe(true);
      } finally {
        dispatch.release();
      }
      const next = await withTransaction(harness.pool, (db) => checkRecipient(db, org.orgId, { contactId: id, channel: 'email', purpose: 'service', now: new Date(), lock: true }));
      expect(next).toMatchObject({ ok: false, reason: 'suppressed' });
    });

    it('a consent withdrawn after a dispatch has read the contact: the dispatch takes its consent lock, then the withdrawal goes', async () => {
      const id = await contact({ email: 'withdraws@example.org' });
      await mcpCall(owner, 'channels_record_consent', { contactId: id, channel: 'email', purpose: 'marketing', basis: 'consent', ...evidence });
      const dispatch = await harness.pool.connect();
      try {
        await dispatch.query('BEGIN');
        await loadDeliveryContact(dispatch, org.orgId, id, true);
        const withdrawal = withTransaction(harness.pool, (db) => withdrawConsent(db, org.orgId, { contactId: id, channel: 'email', purpose: 'marketing', source: 'phone call' }));
        await untilBlocked();
        const check = await checkRecipient(dispatch, org.orgId, { contactId: id, channel: 'email', purpose: 'marketing', now: new Date(), lock: true });
        expect(check.ok).toBe(true);
        await dispatch.query('COMMIT');
        expect((await withdrawal).length).toBe(1);
      } finally {
        dispatch.release();
      }
      const next = await withTransaction(harness.pool, (db) => checkRecipient(db, org.orgId, { contactId: id, channel: 'email', purpose: 'marketing', now: new Date(), lock: true }));
      expect(next).toMatchObject({ ok: false, reason: 'no_consent' });
    });
  });

  describe('senders', () => {
    const records: Record<string, string[][]> = {};
    const resolver: TxtResolver = {
      async resolveTxt(name) {
        if (records[name]) return records[name];
        throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      },
    };
    beforeAll(() => setSenderDnsResolver(resolver));

    it('an email domain is verified when SPF, DKIM and DMARC pass; pending when some do; failed when none', async () => {
      const created = await mcpCall(owner, 'channels_create_sender', { channel: 'email', address: 'Mail.StAnne.org.uk' });
      expect(created.sender).toMatchObject({ kind: 'domain', address: 'mail.stanne.org.uk', status: 'unverified', dkimSelector: 'steward' });
      const failed = await mcpCall(owner, 'channels_verify_sender_domain', { senderId: created.sender.id });
      expect(failed.sender).toMatchObject({ status: 'failed', lastCheck: { spf: { result: 'missing' }, dkim: { result: 'missing' }, dmarc: { result: 'missing' } } });

      records['mail.stanne.org.uk'] = [['v=spf1 include:_spf.example.net ', '~all'], ['google-site-verification=abc']];
      const pending = await mcpCall(owner, 'channels_verify_sender_domain', { senderId: created.sender.id });
      expect(pending.sender).toMatchObject({ status: 'pending', lastCheck: { spf: { result: 'pass', found: 'v=spf1 include:_spf.example.net ~all' } } });

      records['steward._domainkey.mail.stanne.org.uk'] = [['v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC']];
      records['_dmarc.mail.stanne.org.uk'] = [['v=DMARC1; p=quarantine; rua=mailto:dmarc@stanne.org.uk']];
      const verified = await mcpCall(owner, 'channels_verify_sender_domain', { senderId: created.sender.id });
      expect(verified.sender).toMatchObject({ status: 'verified', lastCheck: { dkim: { result: 'pass' }, dmarc: { result: 'pass' } } });
      expect(verified.sender.verifiedAt).not.toBeNull();
      // Webhooks find the organisation by the domain, from any connection.
      expect(await findSenderOrg(harness.pool, 'email', 'bounces@mail.stanne.org.uk')).toBe(org.orgId);

      // Another organisation cannot verify the same domain.
      const theirs = await mcpCall(otherMcp, 'channels_create_sender', { channel: 'email', address: 'mail.stanne.org.uk' });
      expect((await mcpRefusal(otherMcp, 'channels_verify_sender_domain', { senderId: theirs.sender.id })).code).toBe('conflict');

      records['_dmarc.mail.stanne.org.uk'] = [['v=DMARC1; p=reject'], ['v=DMARC1; p=none']];
      expect((await mcpCall(owner, 'channels_verify_sender_domain', { senderId: created.sender.id })).sender).toMatchObject({ status: 'pending', lastCheck: { dmarc: { result: 'invalid' } } });
    });

    it('SMS numbers and alphanumeric ids (one-way, flagged), WhatsApp numbers; a number belongs to one organisation', async () => {
      const alpha = await mcpCall(owner, 'channels_create_sender', { channel: 'sms', address: 'STANNE' });
      expect(alpha.sender).toMatchObject({ kind: 'alphanumeric', oneWay: true, status: 'active' });
      expect(alpha.sender.warnings[0]).toMatch(/STOP/);
      const number = await mcpCall(owner, 'channels_create_sender', { channel: 'sms', address: '+447700900100' });
      expect(number.sender).toMatchObject({ kind: 'number', oneWay: false });
      await mcpCall(owner, 'channels_create_sender', { channel: 'whatsapp', address: '+447700900100' });
      expect((await mcpRefusal(otherMcp, 'channels_create_sender', { channel: 'sms', address: '+447700900100' })).code).toBe('conflict');
      expect(await findSenderOrg(harness.pool, 'sms', '+447700900100')).toBe(org.orgId);
      expect(await findSenderOrg(harness.pool, 'sms', '+447700900101')).toBeNull();
      expect((await mcpRefusal(owner, 'channels_create_sender', { channel: 'whatsapp', address: 'STANNE' })).code).toBe('validation_failed');
      expect((await mcpRefusal(owner, 'channels_create_sender', { channel: 'sms', address: 'TOO LONG SENDER' })).code).toBe('validation_failed');
      const listed = await mcpCall(owner, 'channels_list_senders', { channel: 'sms' });
      expect(listed.senders.map((s: any) => s.address).sort()).toEqual(['+447700900100', 'STANNE']);
      expect((await mcpRefusal(owner, 'channels_verify_sender_domain', { senderId: number.sender.id })).code).toBe('validation_failed');
    });
  });

  describe('bad input and other organisations', () => {
    it('invalid E.164, unknown and foreign contacts, foreign suppressions are refused as missing', async () => {
      const bad = await mcpRefusal(owner, 'channels_add_suppression', { channel: 'sms', address: '+0123' });
      expect(bad).toMatchObject({ code: 'validation_failed' });
      expect(bad.hint).toMatch(/\+44/);
      const unknown = '00000000-0000-4000-8000-00000000abcd';
      expect(await sendability({ contactId: unknown, channel: 'email', purpose: 'service' })).toMatchObject({ allowed: false, reason: 'contact_missing' });
      expect((await mcpRefusal(owner, 'channels_record_consent', { contactId: unknown, channel: 'email', purpose: 'service', ...evidence })).code).toBe('not_found');

      const ours = await contact({ email: 'ours@example.org', phone: '+447700900600' });
      expect((await mcpRefusal(otherMcp, 'channels_record_consent', { contactId: ours, channel: 'email', purpose: 'marketing', ...evidence })).code).toBe('not_found');
      expect((await mcpRefusal(otherMcp, 'channels_get_whatsapp_window', { contactId: ours })).code).toBe('not_found');
      expect(await mcpCall(otherMcp, 'channels_check_sendability', { contactId: ours, channel: 'email', purpose: 'service' })).toMatchObject({ allowed: false, reason: 'contact_missing' });
      const suppression = (await mcpCall(owner, 'channels_add_suppression', { channel: 'email', address: 'ours@example.org' })).suppression.id;
      const theirs = (await mcpCall(otherMcp, 'people_create_contact', { firstName: 'A', lastName: 'B', email: 'ours@example.org' })).contact.id;
      expect((await mcpRefusal(otherMcp, 'channels_remove_suppression', { suppressionId: suppression, consent: { contactId: theirs, purpose: 'service', ...evidence } })).code).toBe('not_found');
      expect((await mcpCall(otherMcp, 'channels_list_suppressions', {})).suppressions.map((s: any) => s.address)).not.toContain('ours@example.org');
      // Their own check of the same address is not suppressed: suppressions are per organisation.
      expect(await mcpCall(otherMcp, 'channels_check_sendability', { contactId: theirs, channel: 'email', purpose: 'service' })).toMatchObject({ allowed: true });
    });
  });

  describe('data migration of the old contact fields', () => {
    it('maps subscribed, unsubscribed, bounced and whatsapp_consent written before consent was kept', async () => {
      const legacy = await harness.createOrg({ name: 'Legacy Church' });
      const insert = (id: string, email: string | null, status: string, whatsapp: boolean) => harness.pool.query(
        'INSERT INTO contacts (id, org_id, first_name, last_name, email, phone, status, whatsapp_consent) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [id, legacy.orgId, 'Old', status, email, '+447700900700', status, whatsapp]);
      const ids = { sub: 'aaaaaaaa-0000-4000-8000-000000000001', unsub: 'aaaaaaaa-0000-4000-8000-000000000002', bounced: 'aaaaaaaa-0000-4000-8000-000000000003', none: 'aaaaaaaa-0000-4000-8000-000000000004' };
      await insert(ids.sub, 'sub@legacy.org', 'subscribed', true);
      await insert(ids.unsub, 'Unsub@Legacy.org', 'unsubscribed', false);
      await insert(ids.bounced, 'bounced@legacy.org', 'bounced', false);
      await insert(ids.none, 'none@legacy.org', 'non_subscribed', false);
      await harness.pool.query(channelsConsentFromContacts.up as string);

      const legacyMcp = await harness.mcpClient(legacy.apiKey);
      try {
        const consents = await mcpCall(legacyMcp, 'channels_list_consents', {});
        expect(consents.consents.map((c: any) => [c.contactId, c.channel, c.purpose, c.basis, c.source]).sort()).toEqual([
          [ids.sub, 'email', 'marketing', 'consent', 'migrated:contact.status'],
          [ids.sub, 'whatsapp', 'service', 'consent', 'migrated:contact.whatsapp_consent'],
        ].sort());
        const suppressions = await mcpCall(legacyMcp, 'channels_list_suppressions', {});
        expect(suppressions.suppressions.map((s: any) => [s.address, s.reason]).sort()).toEqual([['bounced@legacy.org', 'hard_bounce'], ['unsub@legacy.org', 'unsubscribe']]);
        const check = (contactId: string, channel: string, purpose: string) => mcpCall(legacyMcp, 'channels_check_sendability', { contactId, channel, purpose });
        expect(await check(ids.sub, 'email', 'marketing')).toMatchObject({ allowed: true });
        expect(await check(ids.unsub, 'email', 'service')).toMatchObject({ reason: 'suppressed' });
        expect(await check(ids.none, 'email', 'marketing')).toMatchObject({ reason: 'no_consent' });
        expect(await check(ids.none, 'whatsapp', 'service')).toMatchObject({ reason: 'no_consent' });
      } finally {
        await legacyMcp.close();
      }
    });
  });
});
