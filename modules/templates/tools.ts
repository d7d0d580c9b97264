import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { cursorInput, cursorOutput, toolsFor } from '../kit';
import type { ToolContext } from '../tool';
import { CHANNELS, PURPOSES, analyseContent, exampleValues, renderContent, type Finding } from './content';
import { countTemplateUses } from './extension-points';
import { standardValuesFor } from './services';
import {
  VERSION_STATUSES, WHATSAPP_STATUSES, activateVersion, archiveTemplate, contentOf, createTemplate, createVersion, getTemplate, listTemplates,
  requireVersion, validateVersion, versionView,
} from './store';
import { diffTextLines } from './line-diff';
import { VARIABLE_NAME } from './syntax';
import { recordSubmission, submitToProvider, type Submission } from './whatsapp-review';

const tools = toolsFor('templates', { read: 'templates:read', write: 'templates:write' });
const userOf = (ctx: ToolContext) => ctx.principal.userId;

// ---------------------------------------------------------------- shapes

const channel = z.enum(CHANNELS).describe('email, sms or whatsapp');
const purpose = z.enum(PURPOSES).describe('marketing, charitable_purpose (news and appeals under the charitable soft opt-in) or service (rotas, reminders, receipts)');
const templateId = z.uuid().describe('The template');
const versionId = z.uuid().describe('The template version');

const variableInput = z.object({
  name: z.string().max(64).regex(VARIABLE_NAME, 'lowercase letters, digits and underscores, starting with a letter (at most 64)').describe('Used in the text as {{name}}'),
  example: z.string().trim().min(1).max(200).optional().describe('A realistic value, for previews and WhatsApp review'),
  description: z.string().trim().min(1).max(300).optional().describe('What it holds, for whoever sends the template'),
});

const contentFields = {
  subject: z.string().trim().min(1).max(998).nullable().optional().describe('Email subject (required for email) or WhatsApp header; none for SMS'),
  body: z.string().min(1).max(20000).describe('The text, with variables written {{name}}; the plain-text part of an email'),
  html: z.string().min(1).max(200000).nullable().optional().describe('Email only: the HTML part; merge data is HTML-escaped in it'),
  variables: z.array(variableInput).max(50).optional().describe(`Variables the text uses besides the standard first_name, last_name, full_name and organisation_name (filled from the contact)`),
};

const templateSchema = z.object({
  id: z.uuid(), name: z.string(), channel, purpose, locale: z.string(), description: z.string().nullable(), archived: z.boolean(), archivedAt: z.string().nullable(),
  createdAt: z.string(), activeVersion: z.object({ id: z.uuid(), number: z.number().int() }).strict().nullable(), latestVersionNumber: z.number().int(),
}).strict();

const versionSchema = z.object({
  id: z.uuid(), templateId: z.uuid(), number: z.number().int(), status: z.enum(VERSION_STATUSES), subject: z.string().nullable(), body: z.string(), html: z.string().nullable(),
  variables: z.array(z.object({ name: z.string(), example: z.string().nullable(), description: z.string().nullable() }).strict()),
  createdAt: z.string(), approvedAt: z.string().nullable(), activatedAt: z.string().nullable(), archivedAt: z.string().nullable(),
  whatsapp: z.object({
    status: z.enum(WHATSAPP_STATUSES), name: z.string().nullable(), providerTemplateId: z.string().nullable(), category: z.string().nullable(),
    reason: z.string().nullable(), submittedAt: z.string().nullable(), statusAt: z.string().nullable(),
  }).strict().nullable().describe('WhatsApp\'s review of this version, once submitted'),
}).strict();

const findingSchema = z.object({ code: z.string(), message: z.string(), field: z.string().optional() }).strict();
const findings = (list: Finding[]) => list.map((finding) => ({ code: finding.code, message: finding.message, ...(finding.field ? { field: finding.field } : {}) }));

const smsSchema = z.object({
  encoding: z.enum(['GSM-7', 'UCS-2']), characters: z.number().int(), units: z.number().int(), segments: z.number().int(), perSegment: z.number().int(),
}).strict();

// ---------------------------------------------------------------- tools

export const listTemplatesTool = tools.read('list_templates', {
  title: 'List message templates',
  description: 'Email, SMS and WhatsApp templates of the organisation, newest first, each with its active version (if any); filter by channel, purpose or name. templates_get_template shows one template\'s versions.',
  keywords: ['templates', 'message templates', 'email templates', 'sms templates', 'whatsapp templates', 'saved wordings', 'standard messages', 'stock replies'],
  examples: ['which SMS templates do we have', 'show our email templates for appeals', 'list the standard message texts we keep', 'what saved emails have we got', "show the WhatsApp messages we've set up", 'do we have a standard text for rota reminders', 'list all our stock wordings', 'find the template for welcoming newcomers', 'which message templates are for giving', 'our templates', "I'm writing a new welcome text, what standard wordings do we already keep for newcomers?", 'have we got a template for funeral follow-ups?'],
  input: z.object({
    channel: channel.optional(), purpose: purpose.optional(),
    nameContains: z.string().trim().min(1).max(200).optional().describe('Only templates whose name contains this (case does not matter)'),
    includeArchived: z.boolean().default(false).describe('Also list archived templates'),
    ...cursorInput,
  }),
  output: z.object({ templates: z.array(templateSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listTemplates(ctx.db, ctx.org.id, input),
});

export const getTemplateTool = tools.read('get_template', {
  title: 'Get a template and its versions',
  description: 'One template with every version, newest first: status (draft, approved, active, archived), the words, declared variables and, for WhatsApp, the review state.',
  keywords: ['template versions', 'template details', 'whatsapp review status', 'template history', 'template wording'],
  examples: ['show the versions of the welcome email template', 'has WhatsApp approved the rota reminder yet', 'show me all the drafts of the baptism follow-up template', 'which version of the rota text is live', 'has Meta rejected our WhatsApp welcome message', 'what variables does the birthday email use', 'open the appeal template and its history', 'look at the newcomer SMS template in full', 'what does the current version of the rota reminder say', 'show every version of the Alpha invitation template', 'is the WhatsApp birthday template still in review', 'what placeholders does the baptism letter template have'],
  input: z.object({ templateId }),
  output: z.object({ template: templateSchema, versions: z.array(versionSchema) }).strict(),
  run: async (ctx, input) => getTemplate(ctx.db, ctx.org.id, input.templateId),
});

export const createTemplateTool = tools.write('create_template', {
  title: 'Create a message template',
  description: 'Creates a template (channel, purpose, locale, a name unique in the organisation) with its first version as a draft. Variables are written {{name}}; first_name, last_name, full_name and organisation_name come from the contact, others must be declared (with an example). Validate and activate the version before it can be sent.',
  keywords: ['new template', 'email template', 'sms template', 'whatsapp template', 'message wording'],
  examples: ['make an SMS template reminding people of their rota slot', 'create a welcome email template for newcomers', 'set up a new standard email thanking first-time givers', 'I want a stock text for reminding parents about Sunday school', 'create a WhatsApp message template for event reminders', 'draft a reusable birthday greeting email', 'new saved wording for funeral follow-up letters', 'write a template for the coffee rota reminder text', 'new SMS template', 'we send the same Lent course reminder every week, make it a reusable email template', 'can you create a standard WhatsApp message for choir practice?'],
  input: z.object({
    name: z.string().trim().min(1).max(200).describe('Unique among the organisation\'s live templates'),
    channel, purpose,
    locale: z.string().max(6).regex(/^[a-z]{2,3}(-[A-Z]{2})?$/, 'a language tag such as en or en-GB').default('en-GB').describe('Language of the words, e.g. en-GB (default), cy, es'),
    description: z.string().trim().min(1).max(1000).optional().describe('What it is for'),
    ...contentFields,
  }),
  output: z.object({ template: templateSchema, version: versionSchema }).strict(),
  run: async (ctx, input) => createTemplate(ctx.db, ctx.org.id, userOf(ctx), input),
});

export const createVersionTool = tools.write('create_version', {
  title: 'Create a new template version',
  description: 'Writes a new draft version of a template: the fields given replace the latest version\'s, the rest are copied. The active version stays active (and is never edited) until the new one is activated with templates_activate_version.',
  keywords: ['edit template', 'change template wording', 'new version', 'update template', 'keep previous version'],
  examples: ['change the rota reminder to mention the car park', 'fix the typo in the welcome email', 'reword the welcome text to mention the new vicar', 'update the subject line of the appeal email', 'tweak the SMS reminder but keep the old one live for now', 'correct the spelling mistake in the birthday template', 'change the giving appeal wording for Advent', 'draft a new version of the newcomer email', 'edit the welcome template', 'the office moved to the church hall, update the address in the newcomer email as a new draft', 'can I change the wording of the rota reminder text?'],
  input: z.object({
    templateId,
    subject: contentFields.subject, body: contentFields.body.optional(), html: contentFields.html, variables: contentFields.variables,
  }),
  output: z.object({ version: versionSchema, basedOn: z.object({ id: z.uuid(), number: z.number().int() }).strict().nullable() }).strict(),
  run: async (ctx, input) => {
    const { templateId: id, ...changes } = input;
    if (Object.values(changes).every((value) => value === undefined)) {
      throw new StewardError('validation_failed', 'Nothing to change', { hint: 'Give at least one of subject, body, html or variables.' });
    }
    return createVersion(ctx.db, ctx.org.id, userOf(ctx), id, changes);
  },
});

export const renderPreviewTool = tools.read('render_preview', {
  title: 'Preview a template version',
  description: 'Renders a version (or a template\'s active version) without sending or changing anything: subject, text, HTML, SMS encoding and segment count, the WhatsApp template message payload, and lint warnings. Values come from `variables`, then the contact (if given), then the declared examples; missing ones are listed and nothing is rendered.',
  keywords: ['preview', 'render', 'sms segments', 'how many texts', 'sample message', 'dry run', 'how it will look', 'look like', 'see the template', 'mock up', 'email preview'],
  examples: ['show me what the rota reminder looks like for John', 'how many SMS segments is this template', 'how would the newsletter email template look for Tom', 'what will the email look like for a given person', 'let me see the welcome email filled in for Mrs Jones', 'how will the rota text read on a phone', 'test render the appeal without sending it', 'is the SMS reminder going to be one text or two', 'show a sample of the birthday email', 'preview the WhatsApp event reminder', 'preview the template', "before Ray's reminder goes, show me how the rota text reads with his name filled in"],
  input: z.object({
    versionId: versionId.optional(),
    templateId: templateId.optional().describe('Preview this template\'s active version'),
    contactId: z.uuid().optional().describe('Fill first_name, last_name, full_name and organisation_name from this contact'),
    variables: z.record(z.string().max(64).regex(VARIABLE_NAME), z.string().max(2000))
      .refine((values) => Object.keys(values).length <= 50, 'at most 50 variables').meta({ maxProperties: 50 }).optional().describe('Values by variable name'),
    useExamples: z.boolean().default(true).describe('Fill what is still missing from the declared examples (default true)'),
  }).refine((value) => Boolean(value.versionId) !== Boolean(value.templateId), { message: 'give exactly one of versionId or templateId', path: ['versionId'] }),
  output: z.object({
    versionId: z.uuid(), status: z.enum(VERSION_STATUSES), channel,
    ready: z.boolean().describe('false when variables are missing or the syntax is broken; then rendered is null'),
    missingVariables: z.array(z.string()),
    rendered: z.object({
      subject: z.string().nullable(), text: z.string(), html: z.string().nullable(), sms: smsSchema.optional(),
      whatsapp: z.record(z.string(), z.unknown()).optional().describe('The `template` object of a WhatsApp Cloud API template message'),
    }).strict().nullable(),
    errors: z.array(findingSchema), warnings: z.array(findingSchema),
  }).strict(),
  run: async (ctx, input) => {
    const id = input.versionId ?? await activeVersionIdOrRefuse(ctx, input.templateId!);
    const version = await requireVersion(ctx.db, ctx.org.id, id);
    const content = contentOf(version);
    const analysis = analyseContent(content);
    const values = {
      ...(input.useExamples ? exampleValues(content) : {}),
      ...(input.contactId ? await standardValuesFor(ctx.db, ctx.org.id, input.contactId) : {}),
      ...(input.variables ?? {}),
    };
    const attempt = renderContent(content, values, version.whatsapp_name ?? undefined);
    return {
      versionId: version.id, status: version.status, channel: version.channel,
      ready: attempt.ok, missingVariables: attempt.ok || attempt.reason !== 'missing' ? [] : attempt.missing,
      rendered: attempt.ok ? { ...attempt.rendered, whatsapp: attempt.rendered.whatsapp as unknown as Record<string, unknown> | undefined } : null,
      errors: findings(analysis.errors), warnings: findings(analysis.warnings),
    };
  },
});

async function activeVersionIdOrRefuse(ctx: ToolContext, id: string): Promise<string> {
  const { template } = await getTemplate(ctx.db, ctx.org.id, id, false);
  if (!template.activeVersion) throw new StewardError('conflict', 'This template has no active version', { hint: 'Pass versionId to preview a draft.' });
  return template.activeVersion.id;
}

export const validateVersionTool = tools.write('validate_version', {
  title: 'Validate a template version',
  description: 'Checks a version: placeholder syntax, undeclared variables, channel rules (email subject, SMS length, WhatsApp\'s review rules) and lint (missing unsubscribe wording in marketing email, link shorteners, long SMS, variables without examples). A clean email or SMS draft becomes approved; a WhatsApp version is approved only by WhatsApp\'s review.',
  keywords: ['lint template', 'check template', 'approve template'],
  examples: ['is the appeal email ready to send', 'check the new SMS wording', 'check the new rota text for problems', 'does the appeal draft have an unsubscribe line', 'run the checks on the newcomer email draft', 'is my WhatsApp wording going to pass the rules', 'lint the birthday template', 'look over the Christmas email draft for mistakes and approve it', 'validate the template', "I've rewritten the Lent appeal email, check it for missing merge fields and other problems", 'is the new WhatsApp draft going to be accepted?'],
  input: z.object({ versionId }),
  output: z.object({ valid: z.boolean(), errors: z.array(findingSchema), warnings: z.array(findingSchema), version: versionSchema }).strict(),
  run: async (ctx, input) => {
    const { analysis, version } = await validateVersion(ctx.db, ctx.org.id, input.versionId);
    return { valid: analysis.errors.length === 0, errors: findings(analysis.errors), warnings: findings(analysis.warnings), version: versionView(version) };
  },
});

export const activateVersionTool = tools.write('activate_version', {
  title: 'Activate a template version',
  description: 'Makes a version the one sends use; the previously active version is archived at the same moment (a template never has two). An email or SMS draft is validated and approved on the way; a WhatsApp version must be approved by WhatsApp first. Activating the active version again changes nothing.',
  keywords: ['publish template', 'use this version', 'go live', 'switch template version', 'start using wording', 'new wording live'],
  examples: ['use version 3 of the rota reminder from now on', 'make the new welcome email live', 'start using the updated text of the giving appeal', 'switch the welcome email to the new wording', 'put the updated rota reminder live', 'from today use the Advent version of the appeal', 'go live with the new birthday text', 'roll back to version 2 of the newcomer email', 'make the corrected SMS the one that goes out', 'activate version 4', "Hannah's corrected the welcome email, so make her new draft the one we send", 'can we go back to the previous wording of the reminder?'],
  idempotent: true,
  input: z.object({ versionId }),
  output: z.object({
    version: versionSchema, previous: z.object({ id: z.uuid(), number: z.number().int() }).strict().nullable().describe('The version that was active until now, archived'),
    changed: z.boolean(),
  }).strict(),
  run: async (ctx, input) => activateVersion(ctx.db, ctx.org.id, input.versionId),
});

export const submitWhatsAppTemplateTool = tools.write('submit_whatsapp_template', {
  title: 'Submit a WhatsApp template for review',
  description: 'Sends a WhatsApp template version to WhatsApp for review (it must pass templates_validate_version\'s rules). The review is then followed until WhatsApp decides (status webhook, with polling as a fallback): approved versions can be activated, rejected ones need a new version. Submitting the same version again changes nothing.',
  keywords: ['whatsapp approval', 'meta review', 'submit template'],
  examples: ['send the new WhatsApp reminder to Meta for approval', 'send the WhatsApp welcome message off for approval', 'submit our new WhatsApp text to Meta', 'get WhatsApp to review the event reminder', 'put the youth club WhatsApp template in for review', 'ask Facebook to approve our WhatsApp wording', 'the WhatsApp draft is ready, send it for checking', 'submit WhatsApp template', "the choir practice WhatsApp message passed the checks, send it off for WhatsApp's approval", 'can we get the new WhatsApp wording reviewed?'],
  idempotent: true,
  input: z.object({ versionId }),
  output: z.object({ version: versionSchema }).strict(),
  prepare: async (input, { db, org }) => submitToProvider(db, org.id, input.versionId),
  followUp: { kind: 'templates.whatsapp_review' },
  run: async (ctx, input) => ({ version: await recordSubmission(ctx.db, ctx.org.id, input.versionId, ctx.prepared as Submission | null) }),
});

export const archiveTemplateTool = tools.write('archive_template', {
  title: 'Archive a template',
  description: 'Retires a template: nothing can be sent with it any more and its name is free again; its versions stay, so sent messages keep their record. Refused while a scheduled (or approved, pending approval or sending) broadcast uses it. Archiving again changes nothing.',
  keywords: ['delete template', 'retire template', 'remove template'],
  examples: ['we do not use the old Christmas appeal template any more, archive it', 'retire the old harvest appeal wording', 'get rid of the 2023 Christmas template', "we've stopped using the old newcomer text, scrap it", 'remove the obsolete rota SMS template', 'bin the test template I made', 'stop anyone using the old Gift Aid email template', 'archive the Lent template', "we don't run the Alpha course any more, so retire its reminder template", 'can we stop the old funeral letter template being used?'],
  destructive: true,
  idempotent: true,
  input: z.object({ templateId }),
  output: z.object({ template: templateSchema, versions: z.array(versionSchema) }).strict(),
  run: async (ctx, input) => archiveTemplate(ctx.db, ctx.org.id, input.templateId, (id) => countTemplateUses(ctx.db, ctx.org.id, id)),
});

const changeSchema = z.object({ kind: z.enum(['same', 'added', 'removed']), lines: z.array(z.string()) }).strict();

function lineDiff(from: string | null, to: string | null) {
  return diffTextLines(from ?? '', to ?? '');
}

export const diffVersionsTool = tools.read('diff_versions', {
  title: 'Compare two template versions',
  description: 'Line-by-line differences between two versions of the same template: subject, body, HTML and declared variables.',
  keywords: ['diff', 'compare versions', 'what changed'],
  examples: ['what changed between version 2 and 3 of the welcome email', 'how does the new appeal wording differ from the old one', 'compare the last two drafts of the rota reminder', 'what did we change in the welcome email', 'show the differences between versions 1 and 4', 'side by side of the old and new birthday text', 'which lines were edited in the newcomer SMS', 'compare template versions', 'Hannah edited the welcome email last week and I want to see exactly what she changed', "what's different between the old and new reminder text?"],
  input: z.object({ fromVersionId: versionId, toVersionId: versionId }),
  output: z.object({
    templateId: z.uuid(), from: z.object({ id: z.uuid(), number: z.number().int() }).strict(), to: z.object({ id: z.uuid(), number: z.number().int() }).strict(),
    changed: z.boolean(),
    subject: z.array(changeSchema), body: z.array(changeSchema), html: z.array(changeSchema),
    variables: z.object({ added: z.array(z.string()), removed: z.array(z.string()), changed: z.array(z.string()) }).strict(),
  }).strict(),
  run: async (ctx, input) => {
    const from = await requireVersion(ctx.db, ctx.org.id, input.fromVersionId);
    const to = await requireVersion(ctx.db, ctx.org.id, input.toVersionId);
    if (from.template_id !== to.template_id) {
      throw new StewardError('validation_failed', 'The two versions belong to different templates', { issues: [{ path: 'toVersionId', message: 'must be a version of the same template' }] });
    }
    const before = new Map(from.variables.map((variable) => [variable.name, JSON.stringify(variable)]));
    const after = new Map(to.variables.map((variable) => [variable.name, JSON.stringify(variable)]));
    const variables = {
      added: [...after.keys()].filter((name) => !before.has(name)),
      removed: [...before.keys()].filter((name) => !after.has(name)),
      changed: [...after.keys()].filter((name) => before.has(name) && before.get(name) !== after.get(name)),
    };
    const subject = lineDiff(from.subject, to.subject);
    const body = lineDiff(from.body, to.body);
    const html = lineDiff(from.html, to.html);
    const changed = [...subject, ...body, ...html].some((part) => part.kind !== 'same') || variables.added.length + variables.removed.length + variables.changed.length > 0;
    return {
      templateId: from.template_id, from: { id: from.id, number: from.number }, to: { id: to.id, number: to.number }, changed,
      subject, body, html, variables,
    };
  },
});

export const templatesTools = [
  listTemplatesTool, getTemplateTool, createTemplateTool, createVersionTool, renderPreviewTool, validateVersionTool, activateVersionTool,
  submitWhatsAppTemplateTool, archiveTemplateTool, diffVersionsTool,
];
