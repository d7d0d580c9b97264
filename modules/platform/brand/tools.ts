import { z } from 'zod';
import { toolsFor } from '../../kit';
import { processorAccountIdSchema, statementDescriptorSchema, suggestStatementDescriptor, tradingNameSchema } from './display-name';
import { BRAND_VOICE_PRESETS, EMOJI_USES, FALLBACK_TEMPLATE_ID, FORMALITIES, PRESET_IDS, presetById, suggestTemplate } from './presets';
import { NO_ACCOUNT, NOT_CONFIGURED, paymentProcessorFromEnv, SYNC_STATUSES, type SyncOutcome } from './processor';
import {
  applyBrandVoiceTemplate, publicDisplayName, requireMaySetPublicName, savedBrandVoice, savePublicDisplayName, setBrandVoice,
} from './service';

const tools = toolsFor('platform', { read: 'platform:read', write: 'platform:write' });

const phrase = z.string().trim().min(1).max(80);
const voiceFields = {
  name: z.string().trim().min(1).max(80).describe('A short name for the voice'),
  tone: z.string().trim().min(1).max(500).describe('How messages should sound, in a sentence or two'),
  formality: z.enum(FORMALITIES).describe('relaxed, warm, measured or formal'),
  emojiUse: z.enum(EMOJI_USES).describe('never, sparingly or freely'),
  vocabularyDo: z.array(phrase).max(20).describe('Words and habits that fit the voice (up to 20, each up to 80 characters)'),
  vocabularyDont: z.array(phrase).max(20).describe('Words and habits to avoid (up to 20, each up to 80 characters)'),
  sample: z.string().trim().min(1).max(500).describe('One sentence written in the voice, to imitate'),
};
const voiceSchema = z.object(voiceFields).strict();
const presetSchema = voiceSchema.extend({ id: z.string(), suitedTo: z.string().describe('Who the voice suits') }).strict();
const savedSchema = voiceSchema.extend({
  templateId: z.string().nullable().describe('The template it started from'),
  customised: z.boolean().describe('Changed since the template was applied'),
  updatedAt: z.string(),
}).strict();

const publicNameSchema = z.object({
  tradingName: z.string(),
  statementDescriptor: z.string().nullable(),
  statementDescriptorAsPrinted: z.string().nullable().describe('How card statements print it (capitals)'),
  processorAccountId: z.string().nullable(),
  sync: z.object({
    status: z.enum(SYNC_STATUSES).describe('synced, not_configured (no processor set up), no_account (account id unknown) or failed (try again later)'),
    message: z.string().nullable(),
    syncedAt: z.string().nullable().describe('When the processor last accepted the name'),
  }).strict(),
  updatedAt: z.string(),
}).strict();

export const getBrandVoiceTool = tools.read('get_brand_voice', {
  title: 'Get the brand voice',
  description: `How the organisation's messages should sound: the saved voice (or the fallback template when none is saved), the library of ${BRAND_VOICE_PRESETS.length} starter templates, a suggested template for this organisation, and its public display name. Read it before drafting emails, appeals or posts.`,
  keywords: ['tone of voice', 'writing style', 'house style', 'brand', 'templates', 'trading name', 'statement descriptor'],
  examples: ['how should our emails sound', 'what tone does the church use', 'show me brand voice templates', "what's our house style for writing", 'remind me how we sound in emails', 'what starter templates are there for our tone', "what's the public name we go by", 'which writing style do you suggest for us', 'before you draft the appeal, check our tone', 'our writing tone', 'before I write the welcome email to newcomers, remind me what voice we use', 'what does our house style say about tone?'],
  input: z.object({
    includePresets: z.boolean().default(true).describe('false leaves the template library out (presets empty) when only the current voice is needed'),
  }),
  output: z.object({
    voice: voiceSchema.extend({ templateId: z.string().nullable(), customised: z.boolean() }).strict().describe('The voice to write in now'),
    source: z.enum(['saved', 'fallback']).describe('saved: the organisation chose it; fallback: nothing saved yet'),
    saved: savedSchema.nullable(),
    fallbackTemplateId: z.string(),
    suggestedTemplateId: z.string().describe('A template that fits what is known of the organisation'),
    suggestionReason: z.string(),
    presetCount: z.number().int().describe('How many templates the library holds'),
    presets: z.array(presetSchema).describe('The template library (empty when includePresets is false)'),
    publicDisplayName: publicNameSchema.nullable(),
  }).strict(),
  run: async (ctx, input) => {
    const saved = await savedBrandVoice(ctx.db, ctx.org.id);
    const fallback = presetById(FALLBACK_TEMPLATE_ID)!;
    const { id, suitedTo: _suitedTo, ...fallbackVoice } = fallback;
    const suggestion = suggestTemplate(ctx.org);
    const voice = saved
      ? { name: saved.name, tone: saved.tone, formality: saved.formality, emojiUse: saved.emojiUse, vocabularyDo: saved.vocabularyDo, vocabularyDont: saved.vocabularyDont, sample: saved.sample, templateId: saved.templateId, customised: saved.customised }
      : { ...fallbackVoice, templateId: id, customised: false };
    return {
      voice, source: saved ? 'saved' as const : 'fallback' as const, saved, fallbackTemplateId: FALLBACK_TEMPLATE_ID,
      suggestedTemplateId: suggestion.templateId, suggestionReason: suggestion.reason,
      presetCount: BRAND_VOICE_PRESETS.length, presets: input.includePresets ? BRAND_VOICE_PRESETS.map((p) => ({ ...p })) : [],
      publicDisplayName: await publicDisplayName(ctx.db, ctx.org.id),
    };
  },
});

export const applyBrandVoiceTemplateTool = tools.write('apply_brand_voice_template', {
  title: 'Apply a brand voice template',
  description: 'Saves one of the starter templates (platform_get_brand_voice lists them) as the organisation\'s brand voice, replacing the saved one. Costs no credits. Staff, admins and owners only.',
  keywords: ['set tone of voice', 'choose writing style', 'brand template'],
  examples: ['use the warm pastoral voice', 'make our messages sound more formal', 'switch our tone to the friendly community one', 'pick the traditional Anglican style template', 'use the suggested voice for us', 'start again with the contemporary template', 'set our writing style from the starter list', 'make the formal template our voice', 'use the friendly tone', 'the new vicar wants things less stuffy, so switch us to the warm conversational template', 'can we adopt the contemporary voice from the starter list?'],
  input: z.object({ templateId: z.enum(PRESET_IDS).describe('A template id from platform_get_brand_voice') }),
  output: z.object({ voice: savedSchema, speakToUser: z.string() }).strict(),
  run: async (ctx, input) => {
    const voice = await applyBrandVoiceTemplate(ctx.db, ctx.principal, input.templateId);
    return { voice, speakToUser: `Your brand voice is now "${voice.name}".` };
  },
});

export const setBrandVoiceTool = tools.write('set_brand_voice', {
  title: 'Adjust the brand voice',
  description: 'Saves a custom brand voice: only the fields given change, the rest keep the current voice (or the fallback template when none is saved). Use it to adjust a template; use platform_apply_brand_voice_template to start again from one. Staff, admins and owners only.',
  keywords: ['custom tone of voice', 'edit writing style', 'words to avoid', 'house style', 'tone of voice'],
  examples: ['add "church family" to the words we use', 'never use emoji in our messages', "don't ever say guys in our messages", 'tweak our tone to be a bit warmer', 'add parish family as a phrase we like', 'sign off emails with Every blessing', 'we want shorter sentences in our communications', 'avoid jargon like narthex in what we write', 'make our tone a bit more formal', 'add God bless as our usual sign-off', "don't use the word congregants in anything we send", 'change our writing style to plain English, short and friendly'],
  input: z.object({
    name: voiceFields.name.optional(), tone: voiceFields.tone.optional(), formality: voiceFields.formality.optional(), emojiUse: voiceFields.emojiUse.optional(),
    vocabularyDo: voiceFields.vocabularyDo.optional(), vocabularyDont: voiceFields.vocabularyDont.optional(), sample: voiceFields.sample.optional(),
  }).refine((value) => Object.values(value).some((field) => field !== undefined), { message: 'give at least one field to change' }),
  output: z.object({ voice: savedSchema }).strict(),
  run: async (ctx, input) => ({ voice: await setBrandVoice(ctx.db, ctx.principal, input) }),
});

export const setPublicDisplayNameTool = tools.write('set_public_display_name', {
  title: 'Set the public display name',
  description: 'Sets the trading name the public sees and, optionally, the text on givers\' card statements (5 to 22 Latin characters, at least one letter, none of < > \\ \' " *), and updates the payment processor\'s connected account when one is configured; the result says whether it was synced. Owners and admins only.',
  keywords: ['trading name', 'statement descriptor', 'bank statement text', 'card statement', 'business name', 'stripe name'],
  examples: ['show ST MARKS CHURCH on card statements', 'change our public name to St Mark\'s Church, Anytown', "change our name to St Mark's with St John", "donors' bank statements should say STMARKS GIVING", 'update the card statement text to ST MARKS ANYTOWN', 'our church has been renamed, update the public name', 'the name people see when giving is wrong, fix it', 'set the trading name to Anytown Community Church', 'change our trading name', "since the merger with St Luke's, givers' card statements should say STLUKES STMARKS", "how do I change what appears on people's bank statements when they give?"],
  input: z.object({
    tradingName: tradingNameSchema,
    statementDescriptor: statementDescriptorSchema.nullable().optional().describe('Text on givers\' card statements (5 to 22 characters, printed in capitals); null clears it, omitted keeps it'),
    processorAccountId: processorAccountIdSchema.optional(),
  }),
  output: z.object({
    publicDisplayName: publicNameSchema,
    suggestedStatementDescriptor: z.string().nullable().describe('When no statement text is set: one made from the trading name that meets the rules'),
    speakToUser: z.string(),
  }).strict(),
  run: async (ctx, input) => {
    // Checked before anything leaves Steward: a refused caller must not change the processor either.
    requireMaySetPublicName(ctx.principal);
    // The processor is called inside the transaction, under a lock on the organisation's public
    // name (the first save has no row to lock, hence an advisory lock): concurrent changes then reach
    // the processor in the order they are saved, so both end on the same name. One bounded request
    // on a rarely changed setting is worth holding the lock for.
    await ctx.db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`public_profiles:${ctx.org.id}`]);
    const current = await publicDisplayName(ctx.db, ctx.org.id);
    const statementDescriptor = input.statementDescriptor === undefined ? current?.statementDescriptor ?? null : input.statementDescriptor;
    const processorAccountId = input.processorAccountId ?? current?.processorAccountId ?? null;
    const values = { tradingName: input.tradingName, statementDescriptor, processorAccountId };
    // Saved first, so an account linked to another organisation is refused before anything is sent to it.
    await savePublicDisplayName(ctx.db, ctx.principal, { ...values, outcome: SYNC_PENDING });
    const outcome = await syncToProcessor(values);
    const saved = await savePublicDisplayName(ctx.db, ctx.principal, { ...values, outcome });
    return {
      publicDisplayName: saved,
      suggestedStatementDescriptor: statementDescriptor ? null : suggestStatementDescriptor(input.tradingName),
      speakToUser: `Your public name is now "${saved.tradingName}"${saved.statementDescriptorAsPrinted ? `, shown on card statements as ${saved.statementDescriptorAsPrinted}` : ''}. ${outcome.message}`,
    };
  },
});

/** Stands in while the processor is asked; it never outlives the call, which saves the real outcome or rolls back. */
const SYNC_PENDING: SyncOutcome = { status: 'failed', message: 'The sync did not finish.' };

async function syncToProcessor(update: { tradingName: string; statementDescriptor: string | null; processorAccountId: string | null }): Promise<SyncOutcome> {
  const processor = paymentProcessorFromEnv();
  if (!processor) return NOT_CONFIGURED;
  if (!update.processorAccountId) return NO_ACCOUNT;
  return processor.updateConnectedAccount({ accountId: update.processorAccountId, tradingName: update.tradingName, statementDescriptor: update.statementDescriptor });
}

export const brandTools = [getBrandVoiceTool, applyBrandVoiceTemplateTool, setBrandVoiceTool, setPublicDisplayNameTool];
