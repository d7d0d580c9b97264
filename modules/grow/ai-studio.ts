import { z } from 'zod';
import { StewardError } from '../../core/errors';
import type { Queryable } from '../../db/pool';
import { audienceSchema, type Audience } from '../channels/api';
import { episodeTranscript } from '../mediahub/api';
import { requireSegment } from '../people/api';
import { AI_URL_SETTING, aiSettings, chatJson, currentBrandVoice, type AiSettings } from '../platform/api';
import { routesFor } from '../routes';
import type { AnyTool, PrepareDeps, ToolContext } from '../tool';
import { growCampaignTools } from './campaign-tools';
import { createCampaign, linksOf, requireCampaign } from './campaigns';
import { checkFields, createForm, fieldInput, type FormField } from './forms';
import { formSchema } from './tools';

/**
 * The AI studio (reached by platform_ai_invoke_api_read/_write, and grow's own pair): drafts of
 * campaigns and forms written by the OpenAI-compatible provider the media AI tools use
 * (MEDIA_AI_API_URL, MEDIA_AI_API_KEY), in the organisation's brand voice. The provider is asked
 * before the call's transaction opens (the route's `prepare`); what it answers is checked like a
 * person's input and saved as a draft campaign or form, never sent: a campaign still needs its
 * own preview, schedule and approval. What leaves for the provider: the brief, the brand voice, a
 * campaign's own words, a segment's name and description, a sermon's title and transcript; never
 * a person's name or details.
 */

const routes = routesFor('grow', { read: 'grow:read', write: 'grow:write' });

function studioSettings(): AiSettings {
  try {
    return aiSettings();
  } catch {
    throw new StewardError('not_configured', `The AI studio is not configured on this server: set ${AI_URL_SETTING} (and MEDIA_AI_API_KEY) to an OpenAI-compatible API`, {
      hint: 'Write the campaign or form yourself with grow_create_campaign or grow_create_form.', details: { reason: 'not_configured', setting: AI_URL_SETTING },
    });
  }
}

async function voiceOf(db: Queryable, orgId: string): Promise<string> {
  const voice = await currentBrandVoice(db, orgId);
  return [
    `Write in the organisation's brand voice "${voice.name}": ${voice.tone} Formality: ${voice.formality}. Emoji: ${voice.emojiUse}.`,
    voice.vocabularyDo.length > 0 ? `Use: ${voice.vocabularyDo.join('; ')}.` : '',
    voice.vocabularyDont.length > 0 ? `Avoid: ${voice.vocabularyDont.join('; ')}.` : '',
    `A sentence in this voice: "${voice.sample}"`,
  ].filter(Boolean).join(' ');
}

const EMAIL_SHAPE = 'Answer with JSON only: {"subject": string (under 120 characters), "body": string (plain text email, paragraphs separated by a blank line, under 6000 characters; '
  + 'keep any https links you were given exactly; no placeholders in brackets)}.';

interface EmailDraft { model: string; subject: string; body: string }

function emailDraftOf(reply: { model: string; answer: Record<string, unknown> }): EmailDraft {
  const subject = typeof reply.answer.subject === 'string' ? reply.answer.subject.trim().slice(0, 300) : '';
  const body = typeof reply.answer.body === 'string' ? reply.answer.body.trim().slice(0, 20_000) : '';
  if (!subject || !body) throw new StewardError('unavailable', 'The AI provider\'s draft had no subject or body', { hint: 'Try again, or write it with grow_create_campaign.' });
  try {
    linksOf(body);
  } catch {
    throw new StewardError('unavailable', 'The AI provider\'s draft had too many links', { hint: 'Try again with a shorter brief.' });
  }
  return { model: reply.model, subject, body };
}

const prepared = <T>(ctx: ToolContext): T => {
  if (ctx.prepared === undefined || ctx.prepared === null) throw new StewardError('internal_error', 'The AI studio\'s draft was not prepared');
  return ctx.prepared as T;
};

const campaignOutput = (growCampaignTools.find((t) => t.name === 'grow_get_campaign') as AnyTool).output.shape.campaign as z.ZodType;
const draftNote = z.string().describe('What to do next: nothing is sent until the draft is previewed, scheduled and approved');
const campaignDraftResponse = z.object({ campaign: campaignOutput, model: z.string(), note: draftNote }).strict();
const CAMPAIGN_NOTE = 'A draft only: read it, change it with grow_update_campaign, then grow_send_test_email, grow_preview_campaign and grow_schedule_campaign (approval as usual).';

const name = z.string().trim().min(1).max(200);
const brief = z.string().trim().min(1).max(2000).describe('What it is for and what it must say');
const purpose = z.enum(['marketing', 'charitable_purpose']).default('marketing');

async function saveCampaignDraft(ctx: ToolContext, input: { name: string; audience: Audience; purpose: 'marketing' | 'charitable_purpose' }, draft: EmailDraft) {
  const campaign = await createCampaign(ctx.db, ctx.org.id, { name: input.name, audience: input.audience, purpose: input.purpose, subject: draft.subject, body: draft.body });
  return { campaign, model: draft.model, note: CAMPAIGN_NOTE };
}

const campaignDraftBody = z.object({ name, brief, audience: audienceSchema, purpose }).strict();
const formDraftBody = z.object({ name, brief }).strict();
const personaliseBody = z.object({ segmentId: z.uuid().describe('The segment to write for (people_list_segments_api)'), name: name.optional() }).strict();
const sermonBody = z.object({ episodeId: z.uuid().describe('The sermon episode (mediahub)'), audience: audienceSchema, name: name.optional(), purpose }).strict();

async function draftCampaign(body: z.output<typeof campaignDraftBody>, deps: PrepareDeps): Promise<EmailDraft> {
  const settings = studioSettings();
  return emailDraftOf(await chatJson(settings, `You write email campaigns for a church. ${await voiceOf(deps.db, deps.org.id)} ${EMAIL_SHAPE}`,
    `Campaign: ${body.name}\nBrief: ${body.brief}`, 'draft the campaign'));
}

async function draftForm(body: z.output<typeof formDraftBody>, deps: PrepareDeps): Promise<{ model: string; fields: FormField[]; thankYou: string }> {
  const settings = studioSettings();
  const reply = await chatJson(settings, `You design short web forms for a church. ${await voiceOf(deps.db, deps.org.id)} Answer with JSON only: `
    + '{"fields": [{"key": string (lower_snake_case), "label": string, "type": "text"|"email"|"phone"|"date"|"choice"|"checkbox"|"consent", "required": boolean, '
    + '"options": string[] (choice only), "contactField": "firstName"|"lastName"|"email"|"phone" (optional)}], "thankYou": string}. '
    + 'Ask first name, last name and email (filling the contact). A consent box is worded exactly as what the person agrees to.', `Form: ${body.name}\nBrief: ${body.brief}`, 'draft the form');
  const fields = z.array(fieldInput).min(1).max(40).safeParse(reply.answer.fields);
  const thankYou = typeof reply.answer.thankYou === 'string' ? reply.answer.thankYou.trim().slice(0, 2000) : '';
  if (!fields.success) throw new StewardError('unavailable', 'The AI provider\'s form draft was not a usable form', { hint: 'Try again, or build it with grow_create_form.' });
  try {
    checkFields(fields.data, ['contact']);
  } catch {
    throw new StewardError('unavailable', 'The AI provider\'s form draft did not identify the person (first name, last name or email)', { hint: 'Try again, or build it with grow_create_form.' });
  }
  return { model: reply.model, fields: fields.data, thankYou: thankYou || 'Thank you: we have your answers.' };
}

async function draftForSegment(campaignId: string, body: z.output<typeof personaliseBody>, deps: PrepareDeps): Promise<EmailDraft & { segmentName: string }> {
  // The campaign and segment first: another organisation's id is not_found whether or not a provider is set.
  const campaign = await requireCampaign(deps.db, deps.org.id, campaignId);
  const segment = await requireSegment(deps.db, deps.org.id, body.segmentId);
  const settings = studioSettings();
  const draft = emailDraftOf(await chatJson(settings, `You adapt a church's email campaign for one group of its people. ${await voiceOf(deps.db, deps.org.id)} `
    + `Keep its facts, dates and links; change what is said and how, for this group. ${EMAIL_SHAPE}`,
  `Group: ${segment.name}${segment.description ? ` (${segment.description})` : ''}\nSubject: ${campaign.subject}\n\n${campaign.body}`, 'personalise the campaign'));
  return { ...draft, segmentName: segment.name };
}

const MAX_TRANSCRIPT_CHARS = 40_000;

async function draftFromSermon(body: z.output<typeof sermonBody>, deps: PrepareDeps): Promise<EmailDraft & { title: string }> {
  const episode = await episodeTranscript(deps.db, deps.org.id, body.episodeId);
  if (!episode) throw new StewardError('not_found', `Episode ${body.episodeId} not found`, { hint: 'mediahub_search finds episodes by title or speaker.' });
  if (!episode.transcript) {
    throw new StewardError('conflict', `"${episode.title}" has no transcript yet`, { hint: 'mediahub_transcribe_episode makes one; ask again once it is ready.', details: { reason: 'no_transcript' } });
  }
  const settings = studioSettings();
  const draft = emailDraftOf(await chatJson(settings, `You turn a church's sermon into an email for its people: the heart of it in a few short paragraphs and an invitation to come or watch. `
    + `${await voiceOf(deps.db, deps.org.id)} Quote the speaker only from the transcript. ${EMAIL_SHAPE}`,
  `Sermon: ${episode.title}${episode.speaker ? ` by ${episode.speaker}` : ''}${episode.scripture ? ` (${episode.scripture})` : ''}\nTranscript:\n${episode.transcript.slice(0, MAX_TRANSCRIPT_CHARS)}`,
  'draft the campaign from the sermon'));
  return { ...draft, title: episode.title };
}

const STUDIO_DRAFTS = [
  { path: '/api/grow/ai/campaign-drafts', what: 'An email campaign from a brief' },
  { path: '/api/grow/ai/form-drafts', what: 'A form (questions and thank-you) from a brief' },
  { path: '/api/grow/ai/campaigns/{campaignId}/personalised-drafts', what: 'A campaign rewritten for one segment' },
  { path: '/api/grow/ai/sermon-campaign-drafts', what: 'An email campaign from a sermon episode\'s transcript' },
];

export const growAiRoutes = [
  routes.get('ai/studio', {
    summary: 'AI studio: whether an AI provider is configured (and the setting that configures it) and what it can draft',
    surface: 'ai',
    response: z.object({
      configured: z.boolean(), setting: z.string(), brandVoice: z.string().describe('The brand voice drafts are written in'),
      drafts: z.array(z.object({ path: z.string(), what: z.string() }).strict()),
    }).strict(),
    run: async (ctx) => ({
      configured: Boolean(process.env[AI_URL_SETTING]?.trim()), setting: AI_URL_SETTING, brandVoice: (await currentBrandVoice(ctx.db, ctx.org.id)).name, drafts: STUDIO_DRAFTS,
    }),
  }),
  routes.post('ai/campaign-drafts', {
    summary: 'AI studio: draft an email campaign from a brief, in the brand voice (saved as a draft, never sent)',
    surface: 'ai', body: campaignDraftBody, response: campaignDraftResponse,
    prepare: async ({ body }, deps) => draftCampaign(body, deps),
    run: async (ctx, { body }) => saveCampaignDraft(ctx, body, prepared<EmailDraft>(ctx)),
  }),
  routes.post('ai/form-drafts', {
    summary: 'AI studio: draft a form (questions and thank-you) from a brief, in the brand voice (saved as a draft form)',
    surface: 'ai', body: formDraftBody, response: z.object({ form: formSchema, model: z.string(), note: draftNote }).strict(),
    prepare: async ({ body }, deps) => draftForm(body, deps),
    run: async (ctx, { body }) => {
      const draft = prepared<{ model: string; fields: FormField[]; thankYou: string }>(ctx);
      const form = await createForm(ctx.db, ctx.org.id, { name: body.name, fields: draft.fields, thankYou: draft.thankYou, creates: ['contact'] });
      return { form, model: draft.model, note: 'A draft form: read its questions, change them with grow_update_form, then grow_publish_form.' };
    },
  }),
  routes.post('ai/campaigns/{campaignId}/personalised-drafts', {
    summary: 'AI studio: rewrite a campaign for one segment of people, saved as a new draft campaign to that segment',
    surface: 'ai', params: z.object({ campaignId: z.uuid() }).strict(), body: personaliseBody, response: campaignDraftResponse,
    prepare: async ({ params, body }, deps) => draftForSegment(params.campaignId, body, deps),
    run: async (ctx, { params, body }) => {
      const original = await requireCampaign(ctx.db, ctx.org.id, params.campaignId);
      const draft = prepared<EmailDraft & { segmentName: string }>(ctx);
      const draftName = body.name ?? `${original.name} (for ${draft.segmentName})`.slice(0, 200);
      return saveCampaignDraft(ctx, { name: draftName, audience: { kind: 'segment', id: body.segmentId }, purpose: original.purpose }, draft);
    },
  }),
  routes.post('ai/sermon-campaign-drafts', {
    summary: 'AI studio: turn a sermon episode\'s transcript into an email campaign draft (saved as a draft, never sent)',
    surface: 'ai', body: sermonBody, response: campaignDraftResponse,
    prepare: async ({ body }, deps) => draftFromSermon(body, deps),
    run: async (ctx, { body }) => {
      const draft = prepared<EmailDraft & { title: string }>(ctx);
      return saveCampaignDraft(ctx, { name: body.name ?? `Sermon: ${draft.title}`.slice(0, 200), audience: body.audience, purpose: body.purpose }, draft);
    },
  }),
];
