import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { BRAND_VOICE_PRESETS } from '../brand/presets';
import { currentBrandVoice } from '../brand/service';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * Brand voice and the public display name through MCP and the HTTP bridge: the template library,
 * applying a template at no cost, custom edits that keep the other fields (also when two run at
 * once), who may change what, the card networks' statement-text rules, and the payment-processor
 * sync against a local server speaking the connected-account update.
 */

interface ProcessorRequest { method: string; path: string; authorization: string | undefined; idempotencyKey: string | undefined; form: Record<string, string> }

/** A local stand-in for the processor's API: records each request and answers as the test says. */
class ProcessorServer {
  readonly requests: ProcessorRequest[] = [];
  answer: { status: number; body: unknown; delayMs?: number } = { status: 200, body: { id: 'acct_test', object: 'account' } };
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req).then(async () => {
      if (this.answer.delayMs) await new Promise((resolve) => setTimeout(resolve, this.answer.delayMs));
      res.writeHead(this.answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(this.answer.body));
    }));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(req: IncomingMessage): Promise<void> {
    let text = '';
    for await (const chunk of req) text += chunk;
    this.requests.push({
      method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      form: Object.fromEntries(new URLSearchParams(text)),
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('brand voice and public display name', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let processor: ProcessorServer;

  beforeAll(async () => {
    // Its own stack: the payment processor the worker calls is set in this suite's environment, test by test.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'St Barnabas Methodist Church' });
    mcp = await harness.mcpClient(org.apiKey);
    processor = new ProcessorServer();
    await processor.start();
  });

  afterAll(async () => {
    delete process.env.PAYMENT_PROCESSOR_SECRET_KEY;
    delete process.env.PAYMENT_PROCESSOR_API_URL;
    delete process.env.PAYMENT_PROCESSOR_TIMEOUT_MS;
    await mcp?.close();
    await processor?.close();
    await harness?.close();
  });

  const usageEvents = async (orgId: string) =>
    (await harness.pool.query('SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1', [orgId])).rows[0].n as number;

  describe('brand voice', () => {
    it('starts from the fallback template, lists the whole library and suggests from the name', async () => {
      const brand = await mcpCall(mcp, 'platform_get_brand_voice', {});
      expect(brand.source).toBe('fallback');
      expect(brand.saved).toBeNull();
      expect(brand.voice).toMatchObject({ templateId: brand.fallbackTemplateId, customised: false });
      expect(brand.presetCount).toBe(BRAND_VOICE_PRESETS.length);
      expect(brand.presets).toHaveLength(brand.presetCount);
      expect(new Set(brand.presets.map((p: { id: string }) => p.id)).size).toBe(brand.presetCount);
      for (const preset of brand.presets) {
        expect(preset.vocabularyDo.length).toBeGreaterThan(0);
        expect(preset.vocabularyDont.length).toBeGreaterThan(0);
        expect(preset.sample.length).toBeGreaterThan(20);
      }
      // "Methodist" is named outright; it wins over the general "St ..." of a parish.
      expect(brand.suggestedTemplateId).toBe('methodist_circuit');
      expect(brand.suggestionReason).toContain('Methodist');
      expect(brand.publicDisplayName).toBeNull();
      const lean = await mcpCall(mcp, 'platform_get_brand_voice', { includePresets: false });
      expect(lean).toEqual({ ...brand, presets: [] });
      const [described] = (await mcpCall(mcp, 'platform_inspect_tools', { names: ['platform_get_brand_voice'] })).tools;
      expect(described.description).toContain(`${BRAND_VOICE_PRESETS.length} starter templates`);
      // Unlisted, but found by what people ask for.
      expect((await mcpCall(mcp, 'platform_search_tools', { query: 'how should our emails sound' })).tools).toContain('platform_get_brand_voice');
    });

    it('suggests from what else a name says, and falls back when it says nothing', async () => {
      const cases: Array<[string, string]> = [
        ['Riverside Food Bank', 'food_bank'], ['Lincoln Cathedral', 'cathedral_heritage'], ['Parish of St Mary, Ashford', 'formal_anglican'],
        ['Hope Youth Trust', 'youth_friendly'], ['The Gathering', 'warm_pastoral'],
      ];
      for (const [name, expected] of cases) {
        const other = await harness.createOrg({ name });
        expect([name, (await harness.call(other.apiKey, 'platform_get_brand_voice', {})).suggestedTemplateId]).toEqual([name, expected]);
      }
    });

    it('applies a template at no cost, and replaces the saved voice with it', async () => {
      const before = await usageEvents(org.orgId);
      const usageBefore = await mcpCall(mcp, 'platform_usage', {});
      const applied = await mcpCall(mcp, 'platform_apply_brand_voice_template', { templateId: 'formal_anglican' });
      const preset = BRAND_VOICE_PRESETS.find((p) => p.id === 'formal_anglican')!;
      expect(applied.voice).toMatchObject({ templateId: 'formal_anglican', customised: false, name: preset.name, tone: preset.tone, sample: preset.sample, vocabularyDo: preset.vocabularyDo });
      expect(applied.speakToUser).toBe(`Your brand voice is now "${preset.name}".`);
      expect(await usageEvents(org.orgId)).toBe(before);
      expect(await mcpCall(mcp, 'platform_usage', {})).toEqual(usageBefore);
      const brand = await mcpCall(mcp, 'platform_get_brand_voice', {});
      expect(brand.source).toBe('saved');
      expect(brand.voice.name).toBe(preset.name);
      // Applying another replaces it whole.
      await mcpCall(mcp, 'platform_apply_brand_voice_template', { templateId: 'youth_friendly' });
      expect((await mcpCall(mcp, 'platform_get_brand_voice', {})).saved).toMatchObject({ templateId: 'youth_friendly', emojiUse: 'freely' });
      expect(await usageEvents(org.orgId)).toBe(before);
    });

    it('changes only the fields given, and two concurrent edits of different fields both land', async () => {
      await mcpCall(mcp, 'platform_apply_brand_voice_template', { templateId: 'warm_pastoral' });
      const preset = BRAND_VOICE_PRESETS.find((p) => p.id === 'warm_pastoral')!;
      const [a, b] = await Promise.all([
        harness.call(org.apiKey, 'platform_set_brand_voice', { emojiUse: 'never' }),
        harness.call(org.apiKey, 'platform_set_brand_voice', { vocabularyDont: ['jargon', 'guilt'] }),
      ]);
      expect([a.voice.customised, b.voice.customised]).toEqual([true, true]);
      const saved = (await mcpCall(mcp, 'platform_get_brand_voice', {})).saved;
      expect(saved).toMatchObject({ templateId: 'warm_pastoral', customised: true, emojiUse: 'never', vocabularyDont: ['jargon', 'guilt'], tone: preset.tone, name: preset.name });
    });

    it('saves a custom voice for an organisation with none, from the fallback; other modules read the same voice', async () => {
      const fresh = await harness.createOrg({ name: 'Fresh Start Church' });
      const fallback = BRAND_VOICE_PRESETS.find((p) => p.id === 'warm_pastoral')!;
      expect(await currentBrandVoice(harness.pool, fresh.orgId)).toMatchObject({ source: 'fallback', name: fallback.name, tone: fallback.tone });
      const { voice } = await harness.call(fresh.apiKey, 'platform_set_brand_voice', { name: 'Our voice', formality: 'formal' });
      expect(voice).toMatchObject({ name: 'Our voice', formality: 'formal', customised: true, templateId: 'warm_pastoral' });
      expect(await currentBrandVoice(harness.pool, fresh.orgId)).toMatchObject({ source: 'saved', name: 'Our voice', formality: 'formal', tone: fallback.tone });
    });

    it('refuses bad input and volunteers, changing nothing', async () => {
      const before = (await mcpCall(mcp, 'platform_get_brand_voice', {})).saved;
      expect((await mcpRefusal(mcp, 'platform_apply_brand_voice_template', { templateId: 'no_such_voice' })).code).toBe('validation_failed');
      for (const args of [{}, { formality: 'shouty' }, { vocabularyDo: Array(21).fill('x') }, { tone: '' }, { sample: 'x'.repeat(501) }, { colour: 'red' }]) {
        expect({ args, code: (await harness.invoke(org.apiKey, 'platform_set_brand_voice', args)).body.error?.code }).toEqual({ args, code: 'validation_failed' });
      }
      const volunteer = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'volunteer');
      expect((await harness.invoke(volunteer.apiKey, 'platform_apply_brand_voice_template', { templateId: 'youth_friendly' })).body.error?.code).toBe('forbidden');
      expect((await harness.invoke(volunteer.apiKey, 'platform_set_brand_voice', { emojiUse: 'freely' })).body.error?.code).toBe('forbidden');
      // A volunteer still reads it, to write in it.
      expect((await harness.call(volunteer.apiKey, 'platform_get_brand_voice', {})).saved).toEqual(before);
      expect((await mcpCall(mcp, 'platform_get_brand_voice', {})).saved).toEqual(before);
    });

    it('never shows one organisation\'s voice to another', async () => {
      const other = await harness.createOrg({ name: 'Elsewhere Chapel' });
      expect((await harness.call(other.apiKey, 'platform_get_brand_voice', {})).source).toBe('fallback');
    });
  });

  describe('public display name', () => {
    it('validates statement text to the card networks\' rules, naming each broken rule, and saves nothing', async () => {
      const bad: Array<[string, string]> = [
        ['ABCD', '5 to 22'], ['A'.repeat(23), '5 to 22'], ['12345678', 'at least one letter'], ['ST MARK\'S', '< > \\'],
        ['FISH <3 CHIPS', '< > \\'], ['CHURCH*GIFT', '< > \\'], ['SAY "HI"', '< > \\'], ['BACK\\SLASH', '< > \\'], ['ÉGLISE ST JEAN', 'Latin letters'],
        ['CAFÉ 中文 TEST', 'Latin letters'], ['ONLINE DONATION', 'name the organisation'], ['DONATIONS', 'name the organisation'],
      ];
      for (const [statementDescriptor, expected] of bad) {
        const error = (await harness.invoke(org.apiKey, 'platform_set_public_display_name', { tradingName: 'St Barnabas', statementDescriptor })).body.error;
        expect({ statementDescriptor, code: error?.code }).toEqual({ statementDescriptor, code: 'validation_failed' });
        expect(JSON.stringify(error?.issues)).toContain(expected);
      }
      for (const tradingName of ['', 'A', 'x'.repeat(101), 'Line one\nLine two']) {
        expect((await harness.invoke(org.apiKey, 'platform_set_public_display_name', { tradingName })).body.error?.code).toBe('validation_failed');
      }
      expect((await harness.invoke(org.apiKey, 'platform_set_public_display_name', { tradingName: 'Ok Name', processorAccountId: 'acct with spaces' })).body.error?.code).toBe('validation_failed');
      expect((await harness.pool.query('SELECT count(*)::int AS n FROM public_profiles WHERE org_id = $1', [org.orgId])).rows[0].n).toBe(0);
    });

    it('saves without a processor configured and says the sync is not configured', async () => {
      delete process.env.PAYMENT_PROCESSOR_SECRET_KEY;
      const result = await mcpCall(mcp, 'platform_set_public_display_name', { tradingName: 'St Barnabas Methodist Church' });
      expect(result.publicDisplayName).toMatchObject({ tradingName: 'St Barnabas Methodist Church', statementDescriptor: null, sync: { status: 'not_configured', syncedAt: null } });
      expect(result.suggestedStatementDescriptor).toBe('ST BARNABAS METHODIST');
      expect(result.speakToUser).toContain('no payment processor is configured');
      // The accepted edge cases: exactly 5 and 22 characters, with the allowed punctuation.
      for (const statementDescriptor of ['ST BB', 'ST BARNABAS & ST JOHN.']) {
        const saved = await mcpCall(mcp, 'platform_set_public_display_name', { tradingName: 'St Barnabas', statementDescriptor });
        expect(saved.publicDisplayName.statementDescriptor).toBe(statementDescriptor);
      }
      const lower = await mcpCall(mcp, 'platform_set_public_display_name', { tradingName: 'St Barnabas', statementDescriptor: 'St Barnabas Church' });
      expect(lower.publicDisplayName.statementDescriptorAsPrinted).toBe('ST BARNABAS CHURCH');
      expect(processor.requests).toHaveLength(0);
    });

    it('with a processor but no account id: saved, and says which id is missing', async () => {
      process.env.PAYMENT_PROCESSOR_SECRET_KEY = 'sk_test_local';
      process.env.PAYMENT_PROCESSOR_API_URL = processor.url;
      const result = await mcpCall(mcp, 'platform_set_public_display_name', { tradingName: 'St Barnabas' });
      expect(result.publicDisplayName.sync.status).toBe('no_account');
      expect(result.publicDisplayName.statementDescriptor).toBe('St Barnabas Church');
      expect(processor.requests).toHaveLength(0);
    });

    it('syncs the connected account over HTTP, and keeps the account id for the next change', async () => {
      processor.answer = { status: 200, body: { id: 'acct_1Test', object: 'account' } };
      const first = await mcpCall(mcp, 'platform_set_public_display_name', { tradingName: 'St Barnabas Methodist', statementDescriptor: 'ST BARNABAS ANYTOWN', processorAccountId: 'acct_1Test' });
      expect(first.publicDisplayName).toMatchObject({ processorAccountId: 'acct_1Test', sync: { status: 'synced' } });
      expect(first.publicDisplayName.sync.syncedAt).not.toBeNull();
      expect(processor.requests.at(-1)).toMatchObject({
        method: 'POST', path: '/v1/accounts/acct_1Test', authorization: 'Bearer sk_test_local',
        form: { 'business_profile[name]': 'St Barnabas Methodist', 'settings[payments][statement_descriptor]': 'ST BARNABAS ANYTOWN' },
      });
      expect(processor.requests.at(-1)!.idempotencyKey).toMatch(/^[0-9a-f]{64}$/);
      // Omitted statement text is kept; null clears it (sent empty so the processor clears it too).
      await mcpCall(mcp, 'platform_set_public_display_name', { tradingName: 'St Barnabas' });
      expect(processor.requests.at(-1)!.form).toEqual({ 'business_profile[name]': 'St Barnabas', 'settings[payments][statement_descriptor]': 'ST BARNABAS ANYTOWN' });
      const cleared = await mcpCall(mcp, 'platform_set_public_display_name', { tradingName: 'St Barnabas', statementDescriptor: null });
      expect(cleared.publicDisplayName.statementDescriptor).toBeNull();
      expect(processor.requests.at(-1)!.form['settings[payments][statement_descriptor]']).toBe('');
      expect((await mcpCall(mcp, 'platform_get_brand_voice', {})).publicDisplayName).toMatchObject({ tradingName: 'St Barnabas', processorAccountId: 'acct_1Test', sync: { status: 'synced' } });
    });

    it('saves nothing when the processor refuses the update, and quotes its reason', async () => {
      const before = (await mcpCall(mcp, 'platform_get_brand_voice', {})).publicDisplayName;
      processor.answer = { status: 400, body: { error: { message: 'No such account: acct_gone', type: 'invalid_request_error' } } };
      const error = await mcpRefusal(mcp, 'platform_set_public_display_name', { tradingName: 'Renamed Church', processorAccountId: 'acct_gone' });
      expect(error.code).toBe('validation_failed');
      expect(error.message).toContain('No such account: acct_gone');
      expect((await mcpCall(mcp, 'platform_get_brand_voice', {})).publicDisplayName).toEqual(before);
    });

    it('saves and reports a failed sync when the processor is down or slow', async () => {
      processor.answer = { status: 503, body: { error: { message: 'down' } } };
      const down = await mcpCall(mcp, 'platform_set_public_display_name', { tradingName: 'St Barnabas (down)' });
      expect(down.publicDisplayName).toMatchObject({ tradingName: 'St Barnabas (down)', sync: { status: 'failed' } });
      expect(down.speakToUser).toContain('503');
      process.env.PAYMENT_PROCESSOR_TIMEOUT_MS = '200';
      processor.answer = { status: 200, body: {}, delayMs: 1_000 };
      const slow = await mcpCall(mcp, 'platform_set_public_display_name', { tradingName: 'St Barnabas (slow)' });
      expect(slow.publicDisplayName.sync).toMatchObject({ status: 'failed' });
      expect(slow.publicDisplayName.sync.message).toContain('did not answer in time');
      // The last successful sync's time is kept.
      expect(slow.publicDisplayName.sync.syncedAt).not.toBeNull();
      delete process.env.PAYMENT_PROCESSOR_TIMEOUT_MS;
    });

    it('orders concurrent changes so Steward and the processor end on the same name', async () => {
      processor.answer = { status: 200, body: {}, delayMs: 50 };
      const names = ['Concurrent One', 'Concurrent Two', 'Concurrent Three'];
      await Promise.all(names.map((tradingName) => harness.call(org.apiKey, 'platform_set_public_display_name', { tradingName })));
      const saved = (await mcpCall(mcp, 'platform_get_brand_voice', {})).publicDisplayName.tradingName;
      expect(names).toContain(saved);
      expect(processor.requests.at(-1)!.form['business_profile[name]']).toBe(saved);
    });

    it('lets only owners and admins set it, and calls no processor for anyone else', async () => {
      processor.answer = { status: 200, body: {} };
      const sent = processor.requests.length;
      for (const role of ['staff', 'volunteer'] as const) {
        const key = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], role);
        expect((await harness.invoke(key.apiKey, 'platform_set_public_display_name', { tradingName: 'Hijacked' })).body.error?.code).toBe('forbidden');
      }
      expect(processor.requests.length).toBe(sent);
      const admin = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'admin');
      expect((await harness.call(admin.apiKey, 'platform_set_public_display_name', { tradingName: 'Set By Admin' })).publicDisplayName.tradingName).toBe('Set By Admin');
      const other = await harness.createOrg({ name: 'Elsewhere Baptist' });
      expect((await harness.call(other.apiKey, 'platform_get_brand_voice', {})).publicDisplayName).toBeNull();
    });

    it('refuses another organisation\'s processor account before sending anything to it', async () => {
      const sent = processor.requests.length;
      const other = await harness.createOrg({ name: 'Elsewhere Baptist' });
      const response = await harness.invoke(other.apiKey, 'platform_set_public_display_name', { tradingName: 'Not Yours', processorAccountId: 'acct_1Test' });
      expect(response.body.error).toMatchObject({ code: 'conflict', issues: [{ path: 'processorAccountId' }] });
      expect(JSON.stringify(response.body)).not.toContain('Set By Admin');
      expect(processor.requests.length).toBe(sent);
      expect((await harness.call(other.apiKey, 'platform_get_brand_voice', {})).publicDisplayName).toBeNull();
      expect((await harness.call(org.apiKey, 'platform_get_brand_voice', {})).publicDisplayName).toMatchObject({ tradingName: 'Set By Admin', processorAccountId: 'acct_1Test' });
    });
  });
});
