import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Harness, type TestOrg } from '../../../test/helpers/harness';

jest.setTimeout(180_000);

interface ChatRequest { model: string; messages: Array<{ role: string; content: string }> }

/** A tiny OpenAI-compatible provider: /chat/completions answers a form or an email as JSON, and remembers what it was asked. */
async function startFakeProvider(): Promise<{ url: string; asked: ChatRequest[]; close: () => Promise<void> }> {
  const asked: ChatRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => { raw += chunk.toString('utf8'); });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(raw) as ChatRequest;
      asked.push(request);
      const system = request.messages[0]!.content;
      const content = system.includes('web forms')
        ? { fields: [
          { key: 'first_name', label: 'First name', type: 'text', required: true, contactField: 'firstName' },
          { key: 'last_name', label: 'Last name', type: 'text', required: true, contactField: 'lastName' },
          { key: 'email', label: 'Email', type: 'email', required: true, contactField: 'email' },
          { key: 'dietary', label: 'Any dietary needs?', type: 'text', required: false },
        ], thankYou: 'Thank you, see you at the lunch!' }
        : { subject: `Draft: ${request.messages[1]!.content.split('\n')[0]!.slice(0, 60)}`, body: 'Dear friends,\n\nJoin us. Details at https://example.org/join today.' };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content: JSON.stringify(content) } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * The AI studio through platform_ai_invoke_api_write against a fake OpenAI-compatible provider:
 * not_configured (naming the setting) without it; drafts of a campaign, a form, a campaign
 * personalised for a segment and a campaign from a sermon's transcript, each saved as a draft and
 * nothing sent; the brand voice in what the provider is asked; another organisation's records and
 * a credential without grow:write refused before the provider is asked.
 */
describe('grow: AI studio', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let provider: Awaited<ReturnType<typeof startFakeProvider>>;
  const saved = process.env.MEDIA_AI_API_URL;
  const write = (apiKey: string, path: string, body: Record<string, unknown>) =>
    harness.invoke(apiKey, 'platform_ai_invoke_api_write', { method: 'POST', path, body, actionSummary: 'Draft with the AI studio' });
  const audience = { kind: 'tag', id: randomUUID() };

  beforeAll(async () => {
    provider = await startFakeProvider();
    delete process.env.MEDIA_AI_API_URL;
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'St Anne' });
    other = await harness.createOrg({ name: 'Elsewhere' });
  });

  afterAll(async () => {
    await harness?.close();
    await provider?.close();
    if (saved === undefined) delete process.env.MEDIA_AI_API_URL;
    else process.env.MEDIA_AI_API_URL = saved;
  });

  it('answers not_configured naming the setting when no provider is set, and writes nothing', async () => {
    const answer = await write(org.apiKey, '/api/grow/ai/campaign-drafts', { name: 'Harvest', brief: 'Harvest supper on Saturday', audience });
    expect(answer.body.error).toMatchObject({ code: 'not_configured', details: { setting: 'MEDIA_AI_API_URL' } });
    expect(answer.body.error!.message).toMatch(/MEDIA_AI_API_URL/);
    const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM grow_campaigns WHERE org_id = $1', [org.orgId]);
    expect(rows[0].n).toBe(0);
    const studio = await harness.call(org.apiKey, 'platform_ai_invoke_api_read', { path: '/api/grow/ai/studio' });
    expect(studio.result).toMatchObject({ configured: false, setting: 'MEDIA_AI_API_URL' });
    expect(studio.result.drafts).toHaveLength(4);
  });

  it('drafts campaigns and forms in the brand voice, saved as drafts and never sent', async () => {
    process.env.MEDIA_AI_API_URL = provider.url;
    await harness.call(org.apiKey, 'platform_apply_brand_voice_template', { templateId: 'warm_pastoral' });

    const drafted = await write(org.apiKey, '/api/grow/ai/campaign-drafts', { name: 'Harvest', brief: 'Harvest supper on Saturday at 6', audience });
    expect(drafted.status).toBe(200);
    const campaign = drafted.body.result.result.campaign;
    expect(campaign).toMatchObject({ name: 'Harvest', status: 'draft', audience, links: ['https://example.org/join'] });
    expect(campaign.subject).toBe('Draft: Campaign: Harvest');
    const asked = provider.asked.at(-1)!;
    expect(asked.messages[0]!.content).toMatch(/brand voice "[^"]+": Kind, personal and unhurried/);
    expect(asked.messages[1]!.content).toContain('Harvest supper on Saturday at 6');

    const form = (await write(org.apiKey, '/api/grow/ai/form-drafts', { name: 'Lunch sign-up', brief: 'Sign up for the welcome lunch' })).body.result.result.form;
    expect(form).toMatchObject({ name: 'Lunch sign-up', status: 'draft', thankYou: 'Thank you, see you at the lunch!', creates: ['contact'] });
    expect(form.fields.map((f: { key: string }) => f.key)).toEqual(['first_name', 'last_name', 'email', 'dietary']);

    // Personalised for a segment: a new draft to that segment, from the campaign's own words.
    const { segment } = await harness.call(org.apiKey, 'people_create_segment_from_template', { templateId: 'new_visitors' });
    const personalised = (await write(org.apiKey, `/api/grow/ai/campaigns/${campaign.id}/personalised-drafts`, { segmentId: segment.id })).body.result.result.campaign;
    expect(personalised).toMatchObject({ status: 'draft', audience: { kind: 'segment', id: segment.id }, name: `Harvest (for ${segment.name})` });
    expect(provider.asked.at(-1)!.messages[1]!.content).toContain(`Group: ${segment.name}`);
    expect(provider.asked.at(-1)!.messages[1]!.content).toContain('Join us.');

    // A sermon's transcript (mediahub's) becomes a campaign draft.
    const { series } = await harness.call(org.apiKey, 'mediahub_create_series', { title: 'Advent hope' });
    const { episode } = await harness.call(org.apiKey, 'mediahub_create_episode', { seriesId: series.id, title: 'Waiting well', speaker: 'Revd Jo', date: '2026-11-29' });
    const noTranscript = await write(org.apiKey, '/api/grow/ai/sermon-campaign-drafts', { episodeId: episode.id, audience });
    expect(noTranscript.body.error).toMatchObject({ code: 'conflict', details: { reason: 'no_transcript' } });
    await harness.pool.query("UPDATE mediahub_episodes SET transcript = $3, transcript_status = 'ready' WHERE org_id = $1 AND id = $2", [org.orgId, episode.id, 'Waiting is not wasted time. God is at work in the waiting.']);
    const sermon = (await write(org.apiKey, '/api/grow/ai/sermon-campaign-drafts', { episodeId: episode.id, audience })).body.result.result.campaign;
    expect(sermon).toMatchObject({ name: 'Sermon: Waiting well', status: 'draft' });
    expect(provider.asked.at(-1)!.messages[1]!.content).toContain('God is at work in the waiting.');

    // Drafts only: nothing queued in channels.
    const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM channel_messages WHERE org_id = $1', [org.orgId]);
    expect(rows[0].n).toBe(0);
    // grow's own pair reaches the same routes.
    const viaGrow = await harness.invoke(org.apiKey, 'grow_invoke_api_write', { method: 'POST', path: '/api/grow/ai/form-drafts', body: { name: 'Second form', brief: 'Another' }, actionSummary: 'Draft' });
    expect(viaGrow.body.result.result.form.status).toBe('draft');
  });

  it('refuses another organisation\'s records and a credential without grow:write before asking the provider', async () => {
    process.env.MEDIA_AI_API_URL = provider.url;
    const { rows: [mine] } = await harness.pool.query('SELECT id FROM grow_campaigns WHERE org_id = $1 LIMIT 1', [org.orgId]);
    const before = provider.asked.length;
    const foreign = await write(other.apiKey, `/api/grow/ai/campaigns/${mine.id}/personalised-drafts`, { segmentId: randomUUID() });
    expect(foreign.body.error?.code).toBe('not_found');
    const { apiKey: narrow } = await harness.createKey(org.orgId, ['platform:read', 'platform:write']);
    const refused = await write(narrow, '/api/grow/ai/campaign-drafts', { name: 'Nope', brief: 'Nope', audience });
    expect(refused.body.error?.code).toBe('insufficient_scope');
    const invalid = await write(org.apiKey, '/api/grow/ai/campaign-drafts', { name: '', brief: 'x', audience });
    expect(invalid.body.error?.code).toBe('validation_failed');
    expect(provider.asked.length).toBe(before);
  });
});
