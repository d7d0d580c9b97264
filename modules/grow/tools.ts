import { z } from 'zod';
import { calendarDate, toolsFor } from '../kit';
import {
  CONTACT_FIELDS, FIELD_TYPES, FORM_CREATES, FORM_STATUSES, MAX_EXPORT_ROWS, closeForm, createForm, exportSubmissions, fieldInput, getSubmission, listForms, listSubmissions,
  publishForm, updateForm,
} from './forms';
import { PAGE_STATUSES, blockInput, createPage, listPages, pageExists, pageStats, setPageStatus, updatePage } from './pages';

const tools = toolsFor('grow', { read: 'grow:read', write: 'grow:write' });

const formId = z.uuid().describe('The form (grow_list_forms)');
const pageId = z.uuid().describe('The landing page (grow_list_landing_pages)');
const dateTime = z.iso.datetime({ offset: true }).max(40);
const actionSummary = z.string().trim().max(500).optional().describe('Plain-English summary shown to the approver');

const answerSchema = z.union([z.string(), z.boolean(), z.null()]);
const fieldSchema = z.object({
  key: z.string(), label: z.string(), type: z.enum(FIELD_TYPES), required: z.boolean(), options: z.array(z.string()).optional(),
  contactField: z.enum(CONTACT_FIELDS).optional(), aboutChild: z.boolean().optional(),
}).strict();
export const formSchema = z.object({
  id: z.uuid(), name: z.string(), status: z.enum(FORM_STATUSES), revision: z.number().int(), fields: z.array(fieldSchema),
  opensAt: z.string().nullable(), closesAt: z.string().nullable(), thankYou: z.string(),
  followUp: z.object({ subject: z.string(), body: z.string() }).strict().nullable(), creates: z.array(z.enum(FORM_CREATES)),
  prayerField: z.string().nullable(), joinGroupId: z.uuid().nullable(),
  publicUrl: z.string().nullable().describe('Where people fill it in (published forms only)'), publishedAt: z.string().nullable(), createdAt: z.string(), updatedAt: z.string(),
}).strict();
export const submissionSchema = z.object({
  id: z.uuid(), formId: z.uuid(), revision: z.number().int().describe('The form revision answered'), pageId: z.uuid().nullable().describe('The landing page it came through'),
  answers: z.record(z.string(), answerSchema).nullable().describe('As submitted (null once the person was erased)'),
  questions: z.array(z.object({ key: z.string(), label: z.string(), type: z.string() }).strict()).describe('The questions as that revision asked them'),
  contactId: z.uuid().nullable(), contactOutcome: z.string().describe('created, matched (an existing contact), none, or erased'), matchedOn: z.array(z.string()),
  guestCardId: z.uuid().nullable(), prayerRequestId: z.uuid().nullable(), joinRequestId: z.uuid().nullable(),
  joinOutcome: z.string().nullable().describe('joined, pending (a leader decides), already_member, already_pending, or refused:<why> (the group was closed or full)'),
  followUpMessageId: z.uuid().nullable().describe('The follow-up email queued for them (channels_get_message shows its delivery)'), submittedAt: z.string(),
}).strict();
const blockSchema = z.union([
  z.object({ type: z.literal('heading'), text: z.string(), level: z.number().int() }).strict(),
  z.object({ type: z.literal('text'), text: z.string() }).strict(),
  z.object({ type: z.literal('image'), mediaId: z.string(), alt: z.string() }).strict(),
  z.object({ type: z.literal('form'), formId: z.string() }).strict(),
  z.object({ type: z.literal('button'), label: z.string(), href: z.string() }).strict(),
]);
const pageSchema = z.object({
  id: z.uuid(), slug: z.string(), title: z.string(), blocks: z.array(blockSchema), status: z.enum(PAGE_STATUSES),
  publicUrl: z.string().nullable().describe('The public address (published pages only)'), publishedAt: z.string().nullable(), createdAt: z.string(), updatedAt: z.string(),
}).strict();

const formFields = {
  opensAt: dateTime.nullable().optional().describe('When it starts taking answers (default: once published)'),
  closesAt: dateTime.nullable().optional().describe('When it stops taking answers (default: when closed)'),
  thankYou: z.string().trim().min(1).max(2000).optional().describe('Shown after sending (default: "Thank you: we have your answers.")'),
  followUp: z.object({ subject: z.string().trim().min(1).max(200), body: z.string().trim().min(1).max(5000) }).nullable().optional()
    .describe('An email to the person after they submit, through the channels outbox (not sent to a suppressed address or someone on a crisis hold)'),
  creates: z.array(z.enum(FORM_CREATES)).min(1).max(4).optional()
    .describe('contact (match or create the person; default), guest_card (open their guests pipeline card), prayer_request (from the prayerField answer, seen by the pastoral team), group_join_request (ask to join joinGroupId)'),
  prayerField: z.string().max(40).nullable().optional().describe('prayer_request: the key of the text field holding the request'),
  joinGroupId: z.uuid().nullable().optional().describe('group_join_request: the small group (groups_list) they ask to join'),
};

// ---------------------------------------------------------------- forms

const listFormsTool = tools.read('list_forms', {
  title: 'List forms',
  description: 'The organisation\'s forms (connect cards, sign-ups, prayer and interest forms): status (draft, published, closed, archived), fields, open window, what a submission creates, public address and how many submissions each has.',
  keywords: ['forms', 'connect card', 'sign-up form', 'web form', 'online form'],
  examples: ['what forms do we have', 'show our published forms', 'which sign-up forms are open', 'list the connect card forms', 'how many responses has each of our forms had', 'is the Alpha sign-up form still a draft', 'what\'s the web address of the prayer request form', 'all our forms', 'Zoe is rebuilding the website, which forms do we have and where do they live?', 'which forms are closed or archived'],
  input: z.object({ status: z.enum(FORM_STATUSES).optional(), limit: z.number().int().min(1).max(100).default(50) }),
  output: z.object({ forms: z.array(formSchema.extend({ submissions: z.number().int() }).strict()) }).strict(),
  run: async (ctx, input) => ({ forms: await listForms(ctx.db, ctx.org.id, input.status, input.limit) }),
});

const createFormTool = tools.write('create_form', {
  title: 'Create a form',
  description: 'Creates a form as a draft: fields (text, email, phone, date, choice, checkbox, consent boxes that are never pre-ticked, a guardian\'s consent when a child\'s details are asked), the contact detail each answer fills, an open window, a thank-you message, a follow-up email and what a submission creates (a contact matched by email/phone/name or created; a guests pipeline card; a prayer request; a small-group join request). Publish it with grow_publish_form.',
  keywords: ['new form', 'connect card', 'sign up form', 'interest form', 'web form'],
  examples: ['make a connect card form for newcomers', 'create a sign-up form for the youth weekend with a parent consent box', 'build a form asking name, email and how they heard of us', 'we need an online form for people interested in baptism', 'set up a prayer request form with a consent tick box', 'new interest form for the Alpha course that adds people as contacts', 'create a holiday club registration form needing a parent\'s consent', 'new sign-up form', "the men's breakfast needs a booking form that asks for dietary needs", 'I want a form for people to volunteer for the café'],
  input: z.object({ name: z.string().trim().min(1).max(200), fields: z.array(fieldInput).min(1).max(40), ...formFields }),
  output: z.object({ form: formSchema }).strict(),
  run: async (ctx, input) => ({ form: await createForm(ctx.db, ctx.org.id, input) }),
});

const updateFormTool = tools.write('update_form', {
  title: 'Update a form',
  description: 'Changes a form\'s name, fields, window, thank-you, follow-up email or what it creates. Changed fields make a new revision: submissions already made keep the questions they answered. An archived form changes no more.',
  keywords: ['edit form', 'add question', 'change form', 'form deadline'],
  examples: ['add a phone number question to the connect card', 'close the youth form sign-ups on Friday at noon', 'change the thank-you message on the baptism form', 'add a dietary needs question to the Alpha sign-up', 'change who gets the follow-up email from the prayer form', 'extend the holiday club form deadline to the end of June', 'make the phone question optional on the connect card', 'edit the connect card', 'Zoe wants to ask whether newcomers have kids, add that question', 'can the café volunteer form close on the 30th'],
  input: z.object({ formId, name: z.string().trim().min(1).max(200).optional(), fields: z.array(fieldInput).min(1).max(40).optional(), ...formFields }),
  output: z.object({ form: formSchema, newRevision: z.boolean() }).strict(),
  run: async (ctx, input) => updateForm(ctx.db, ctx.org.id, input.formId, input),
});

const publishFormTool = tools.write('publish_form', {
  title: 'Publish a form',
  description: 'Publishes a draft or closed form at its public address (publicUrl), where anyone may fill it in within its window. Publishing one already published changes nothing (alreadyPublished).',
  keywords: ['go live form', 'open form', 'share form link', 'form live', 'make form available', 'let people fill in'],
  examples: ['publish the connect card form', 'make the youth weekend sign-up live', 'reopen the baptism interest form', 'put the newcomers form live so people can fill it in', 'let people start using the sign-up form', 'open the Alpha registration form on the website', 'get the prayer request form online', 'publish the café form', "the men's breakfast form is finished, put it up so people can use it", 'can the volunteer form go live today'],
  idempotent: true,
  input: z.object({ formId }),
  output: z.object({ form: formSchema, alreadyPublished: z.boolean() }).strict(),
  run: async (ctx, input) => publishForm(ctx.db, ctx.org.id, input.formId),
});

const closeFormTool = tools.write('close_form', {
  title: 'Close a form',
  description: 'Stops a published form taking answers (closed; it can be published again), or archives a form for good (archive: true; kept with its submissions, never shown again).',
  keywords: ['stop form', 'archive form', 'form closed', 'stop responses'],
  examples: ['close the youth weekend sign-ups', 'stop taking answers on the survey', 'archive last year\'s connect card', 'the holiday club is full, stop the registration form', 'shut the Alpha sign-up form now the course has started', 'retire the old prayer form permanently', 'no more entries for the harvest survey', 'close the café form', "we've got enough volunteers now, so stop the form taking any more", 'can we archive the old newcomers form'],
  idempotent: true,
  input: z.object({ formId, archive: z.boolean().default(false) }),
  output: z.object({ form: formSchema, changed: z.boolean() }).strict(),
  run: async (ctx, input) => closeForm(ctx.db, ctx.org.id, input.formId, input.archive),
});

const listSubmissionsTool = tools.read('list_submissions', {
  title: 'List form submissions',
  description: 'A form\'s submissions, newest first: answers as submitted with the questions that revision asked, the contact matched or created (and on what it matched), and the guest card opened.',
  keywords: ['form responses', 'who filled in the form', 'form answers'],
  examples: ['who filled in the connect card this week', 'show the responses to the youth weekend form', 'how many people signed up on the form', 'who has registered for holiday club through the form', 'list the prayer requests that came in through the form', 'did Sarah Jones fill in any of our forms', 'latest entries on the Alpha interest form', 'café form replies', "Zoe's following up newcomers, who filled in the connect card this month?", "what answers came in on the men's breakfast form"],
  input: z.object({ formId, contactId: z.uuid().optional().describe('Only this contact\'s submissions'), limit: z.number().int().min(1).max(100).default(25), offset: z.number().int().min(0).max(100_000).default(0) }),
  output: z.object({ submissions: z.array(submissionSchema), total: z.number().int() }).strict(),
  run: async (ctx, input) => listSubmissions(ctx.db, ctx.org.id, input),
});

const getSubmissionTool = tools.read('get_submission', {
  title: 'Get a form submission',
  description: 'One submission: its answers as submitted, the questions of the revision it answered, the landing page it came through, and what it created (contact matched or created, guest card).',
  keywords: ['form response', 'submission details', 'one person\'s answers', 'what someone put on the form'],
  examples: ['show me that connect card submission', 'what did she put on the form', 'open one response to the sign-up form', 'read someone\'s answers to the connect card', 'show the full answers on that holiday club registration', 'which landing page did that sign-up come from', 'did that form entry create a new contact or match one', 'let me see the details of the latest prayer form entry', 'open that submission', "Tom's connect card looked odd, show me exactly what he filled in", 'what did the latest café volunteer enter'],
  input: z.object({ submissionId: z.uuid().describe('The submission (grow_list_submissions)') }),
  output: z.object({ submission: submissionSchema }).strict(),
  run: async (ctx, input) => ({ submission: await getSubmission(ctx.db, ctx.org.id, input.submissionId) }),
});

const exportSubmissionsTool = tools.read('export_submissions', {
  title: 'Export form submissions (CSV)',
  description: `Every submission of a form as CSV (oldest first, up to ${MAX_EXPORT_ROWS.toLocaleString('en-GB')} rows): one column per question, then the contact and what was created. Cells that a spreadsheet would run as a formula are neutralised.`,
  keywords: ['download form responses', 'form csv', 'export form'],
  examples: ['export the connect card answers to a spreadsheet', 'download the youth weekend sign-ups as CSV', 'give me the holiday club registrations in Excel', 'CSV of every Alpha sign-up form entry', 'download all the prayer form answers', 'I need the connect card responses as a spreadsheet for the PCC', 'export who signed up on the harvest form', 'form answers to CSV', 'the café rota is done in Excel, so give me all the volunteer form replies', 'can I download every connect card entry'],
  input: z.object({ formId }),
  output: z.object({ csv: z.string(), rows: z.number().int(), truncated: z.boolean() }).strict(),
  run: async (ctx, input) => exportSubmissions(ctx.db, ctx.org.id, input.formId),
});

// ---------------------------------------------------------------- landing pages

const slug = z.string().trim().max(80).regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lower-case words joined by hyphens, e.g. christmas-2026').describe('The page\'s address part');

const listPagesTool = tools.read('list_landing_pages', {
  title: 'List landing pages',
  description: 'The organisation\'s landing pages: slug, title, blocks, status (draft, published, unpublished) and public address.',
  keywords: ['landing pages', 'web pages', 'microsite'],
  examples: ['what landing pages do we have', 'show the Christmas page', 'which pages are live', 'list our Easter and Christmas web pages', 'which landing pages are still drafts', 'what\'s the address of the Alpha landing page', 'show the landing pages we\'ve unpublished', 'our web pages', 'Zoe wants to tidy the site, which landing pages exist and which are live?', "what's the link to the men's breakfast page"],
  input: z.object({ status: z.enum(PAGE_STATUSES).optional(), limit: z.number().int().min(1).max(100).default(50) }),
  output: z.object({ pages: z.array(pageSchema) }).strict(),
  run: async (ctx, input) => ({ pages: await listPages(ctx.db, ctx.org.id, input.status, input.limit) }),
});

const createPageTool = tools.write('create_landing_page', {
  title: 'Create a landing page',
  description: 'Creates a landing page as a draft: a slug and blocks (heading, text, image from the media library, a form embed, a button). Publishing it is grow_publish_landing_page (a person approves).',
  keywords: ['new landing page', 'web page', 'landing page'],
  examples: ['make a landing page for the Christmas services with the sign-up form', 'create a web page for the Alpha course', 'build an invitation page for Easter', 'a page for the holiday club with the registration form embedded', 'set up /carols with a heading, a photo and a book-now button', 'draft a landing page for the harvest supper', 'new page for the Messy Church invitation', 'new landing page', 'the café needs a web page with a photo and the volunteer form on it', "I'd like a simple page for the men's breakfast"],
  input: z.object({ slug, title: z.string().trim().min(1).max(200), blocks: z.array(blockInput).min(1).max(50) }),
  output: z.object({ page: pageSchema }).strict(),
  run: async (ctx, input) => ({ page: await createPage(ctx.db, ctx.org.id, input) }),
});

const updatePageTool = tools.write('update_landing_page', {
  title: 'Update a landing page',
  description: 'Changes a landing page\'s title, blocks or (while not published) its slug. A published page shows the change at once.',
  keywords: ['edit page', 'change page text', 'page wording', 'landing page text', 'reword page'],
  examples: ['change the Christmas page heading', 'add the booking button to the Alpha page', 'reword the text on the harvest landing page', 'fix a typo on the event page', 'swap the photo on the Easter landing page', 'change the Alpha page address to /alpha-autumn before it goes live', 'add the sign-up form to the holiday club page', 'edit the café page', "the men's breakfast moved to the 21st, so change the date on its page", 'can we put a new picture on the Christmas page'],
  input: z.object({ pageId, slug: slug.optional(), title: z.string().trim().min(1).max(200).optional(), blocks: z.array(blockInput).min(1).max(50).optional() }),
  output: z.object({ page: pageSchema }).strict(),
  run: async (ctx, input) => ({ page: await updatePage(ctx.db, ctx.org.id, input.pageId, input) }),
});

const publishPageTool = tools.write('publish_landing_page', {
  title: 'Publish a landing page',
  description: 'Puts a landing page at its public address, served by Steward. Always needs a person\'s approval, then runs.',
  keywords: ['go live page', 'make page public'],
  examples: ['publish the Christmas landing page', 'make the Alpha page live', 'put the holiday club page on the web', 'go live with the /carols page', 'launch the Easter invitation page', 'ask for approval to publish the harvest page', 'the Messy Church page is ready, make it public', 'publish the café page', "Zoe's finished the men's breakfast page, so get it on the web", 'can the new volunteer page go live'],
  approval: { kind: 'gated', when: { reason: 'a published page is public under the organisation\'s name', applies: async (args, deps) => pageExists(deps.db, deps.orgId, String(args.pageId)) } },
  task: {},
  input: z.object({ pageId, actionSummary }),
  output: z.object({ page: pageSchema, changed: z.boolean() }).strict(),
  run: async (ctx, input) => setPageStatus(ctx.db, ctx.org.id, input.pageId, 'published'),
});

const unpublishPageTool = tools.write('unpublish_landing_page', {
  title: 'Unpublish a landing page',
  description: 'Takes a published landing page down (its address answers "not here"); publishing it again needs approval again.',
  keywords: ['take page down', 'hide page'],
  examples: ['take the Christmas page down', 'unpublish the old event page', 'holiday club is over, remove its page from the web', 'pull the Alpha landing page offline', 'hide the Easter invitation page now Easter\'s gone', 'the harvest page has the wrong date, take it offline', 'stop showing the /carols page', 'take the café page down', "the men's breakfast has happened, so remove its page from the web", 'could the old Christmas page come offline'],
  idempotent: true,
  input: z.object({ pageId }),
  output: z.object({ page: pageSchema, changed: z.boolean() }).strict(),
  run: async (ctx, input) => setPageStatus(ctx.db, ctx.org.id, input.pageId, 'unpublished'),
});

const pageStatsTool = tools.read('get_page_stats', {
  title: 'Landing page stats',
  description: 'A landing page\'s views (counted per day; no visitor is tracked), submissions made through its form, and conversion (submissions per view), in total and by day, optionally for a date range.',
  keywords: ['landing page views', 'page conversion', 'how is the page doing'],
  examples: ['how many people visited the Christmas page', 'what is the conversion on the Alpha page', 'how many signed up from the landing page', 'page views for the Easter invitation by day', 'is the holiday club page getting sign-ups', 'how many visits did the /carols page get in December', 'what share of visitors to the Alpha page filled in the form', 'café page views', "Zoe spent ages on the men's breakfast page, is anybody actually visiting it?", 'how many sign-ups has the volunteer page brought in'],
  input: z.object({ pageId, from: calendarDate().optional(), to: calendarDate().optional() }),
  output: z.object({
    page: pageSchema, views: z.number().int(), submissions: z.number().int(), conversionRate: z.number().nullable(),
    byDay: z.array(z.object({ day: z.string(), views: z.number().int(), submissions: z.number().int() }).strict()),
  }).strict(),
  run: async (ctx, input) => pageStats(ctx.db, ctx.org.id, input.pageId, input),
});

export const growFormTools = [
  listFormsTool, createFormTool, updateFormTool, publishFormTool, closeFormTool, listSubmissionsTool, getSubmissionTool, exportSubmissionsTool,
  listPagesTool, createPageTool, updatePageTool, publishPageTool, unpublishPageTool, pageStatsTool,
];
