import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { openGuestCard } from '../guests/api';
import { notFound } from '../kit';
import { createContact, findLikelyDuplicates } from '../people/api';
import type { OrgSettings } from '../tool';
import { assertJoinGroup, runSubmissionActions } from './submission-actions';

/**
 * Forms: fields kept per revision, an open window, a thank-you message and what a submission
 * creates (a contact matched by email, phone or name, or created; a guest pipeline card). Status
 * moves draft → published → closed → archived. Submissions keep their answers exactly as
 * submitted, under the revision they answered.
 */

export const FIELD_TYPES = ['text', 'email', 'phone', 'date', 'choice', 'checkbox', 'consent', 'guardian_consent'] as const;
export const CONTACT_FIELDS = ['firstName', 'lastName', 'email', 'phone', 'dateOfBirth'] as const;
export const FORM_STATUSES = ['draft', 'published', 'closed', 'archived'] as const;
export const FORM_CREATES = ['contact', 'guest_card', 'prayer_request', 'group_join_request'] as const;
export type FormStatus = (typeof FORM_STATUSES)[number];

export const fieldInput = z.object({
  key: z.string().max(40).regex(/^[a-z][a-z0-9_]{0,39}$/, 'lower-case letters, digits and _, starting with a letter').describe('Stable name of the answer (e.g. first_name)'),
  label: z.string().trim().min(1).max(300).describe('What the person reads; for a consent box, the exact wording they agree to'),
  type: z.enum(FIELD_TYPES),
  required: z.boolean().default(false),
  options: z.array(z.string().trim().min(1).max(100)).min(2).max(30).optional().describe('choice only: the options offered'),
  contactField: z.enum(CONTACT_FIELDS).optional().describe('The contact detail this answer fills when the submission creates or matches a contact'),
  aboutChild: z.boolean().optional().describe('The answer is about a child: the form must then ask a guardian\'s consent (a required guardian_consent field)'),
});
export type FormField = z.output<typeof fieldInput>;

export interface FormView {
  id: string;
  name: string;
  status: FormStatus;
  revision: number;
  fields: FormField[];
  opensAt: string | null;
  closesAt: string | null;
  thankYou: string;
  followUp: { subject: string; body: string } | null;
  creates: Array<(typeof FORM_CREATES)[number]>;
  prayerField: string | null;
  joinGroupId: string | null;
  publicUrl: string | null;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface FormRow {
  id: string; org_id: string; name: string; status: FormStatus; revision: number; fields: FormField[]; opens_at: Date | null; closes_at: Date | null; thank_you: string;
  follow_up_subject: string | null; follow_up_body: string | null; creates: Array<(typeof FORM_CREATES)[number]>; published_at: Date | null; created_at: Date; updated_at: Date;
  prayer_field: string | null; join_group_id: string | null;
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);

export function publicBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (env.PUBLIC_URL ?? `http://127.0.0.1:${env.PORT ?? '3000'}`).replace(/\/+$/, '');
}

export const formPath = (orgId: string, formId: string) => `/grow/f/${orgId}/${formId}`;
export const pagePath = (orgId: string, slug: string) => `/grow/p/${orgId}/${slug}`;

export function formView(row: FormRow): FormView {
  return {
    id: row.id, name: row.name, status: row.status, revision: row.revision, fields: row.fields, opensAt: iso(row.opens_at), closesAt: iso(row.closes_at),
    thankYou: row.thank_you, followUp: row.follow_up_subject && row.follow_up_body ? { subject: row.follow_up_subject, body: row.follow_up_body } : null,
    creates: row.creates, prayerField: row.prayer_field, joinGroupId: row.join_group_id, publicUrl: row.status === 'published' ? `${publicBaseUrl()}${formPath(row.org_id, row.id)}` : null,
    publishedAt: iso(row.published_at), createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

function invalid(path: string, message: string, hint?: string): StewardError {
  return new StewardError('validation_failed', message, { issues: [{ path, message }], ...(hint ? { hint } : {}) });
}

/** The rules a form's fields obey together: unique keys, options only for choices, a guardian's consent where a child's details are asked, a way to identify the person if it creates a contact. */
export function checkFields(fields: readonly FormField[], creates: readonly string[], also: { prayerField?: string | null; joinGroupId?: string | null } = {}): void {
  const keys = new Set<string>();
  const mapped = new Set<string>();
  fields.forEach((field, index) => {
    if (keys.has(field.key)) throw invalid(`fields.${index}.key`, `Two fields are named ${field.key}`);
    keys.add(field.key);
    if (field.type === 'choice' && !field.options) throw invalid(`fields.${index}.options`, `${field.key} is a choice and needs its options`);
    if (field.type !== 'choice' && field.options) throw invalid(`fields.${index}.options`, `${field.key} is not a choice, so it takes no options`);
    if (field.contactField) {
      if (mapped.has(field.contactField)) throw invalid(`fields.${index}.contactField`, `Two fields fill the contact's ${field.contactField}`);
      const fits = field.contactField === 'email' ? field.type === 'email' : field.contactField === 'phone' ? field.type === 'phone' : field.contactField === 'dateOfBirth' ? field.type === 'date' : field.type === 'text';
      if (!fits) throw invalid(`fields.${index}.contactField`, `${field.key} (${field.type}) cannot fill the contact's ${field.contactField}`);
      if (field.aboutChild) throw invalid(`fields.${index}.contactField`, `${field.key} is about a child, so it cannot fill the submitting contact's details`);
      mapped.add(field.contactField);
    }
  });
  if (fields.some((field) => field.aboutChild) && !fields.some((field) => field.type === 'guardian_consent' && field.required)) {
    throw invalid('fields', 'This form asks a child\'s details, so it needs a required guardian_consent field', 'Add a field of type guardian_consent (required: true) in the guardian\'s words.');
  }
  if (creates.includes('contact') && !mapped.has('email') && !mapped.has('phone') && !(mapped.has('firstName') && mapped.has('lastName'))) {
    throw invalid('fields', 'A form that creates a contact needs a field filling email or phone, or both firstName and lastName', 'Give those fields contactField.');
  }
  for (const needsContact of ['guest_card', 'prayer_request', 'group_join_request']) {
    if (creates.includes(needsContact) && !creates.includes('contact')) throw invalid('creates', `A ${needsContact.replace(/_/g, ' ')} needs the submission to create or match a contact: add "contact" to creates`);
  }
  const prayerField = fields.find((field) => field.key === also.prayerField);
  if (creates.includes('prayer_request') && (!prayerField || prayerField.type !== 'text')) {
    throw invalid('prayerField', 'A form that creates a prayer request needs prayerField: the key of the text field the person writes their request in');
  }
  if (!creates.includes('prayer_request') && also.prayerField) throw invalid('prayerField', 'prayerField is only for a form whose creates includes prayer_request');
  if (creates.includes('group_join_request') && !also.joinGroupId) throw invalid('joinGroupId', 'A form that creates a group join request needs joinGroupId: the small group they ask to join');
  if (!creates.includes('group_join_request') && also.joinGroupId) throw invalid('joinGroupId', 'joinGroupId is only for a form whose creates includes group_join_request');
}

const SELECT_FORM = 'SELECT * FROM grow_forms';

export async function getFormRow(db: Queryable, orgId: string, formId: string, lock = false): Promise<FormRow | undefined> {
  return queryOne<FormRow>(db, `${SELECT_FORM} WHERE org_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [orgId, formId]);
}

export async function requireForm(db: Queryable, orgId: string, formId: string, lock = false): Promise<FormRow> {
  const row = await getFormRow(db, orgId, formId, lock);
  if (!row) throw notFound('Form', formId, 'grow_list_forms lists the forms.');
  return row;
}

export interface FormWrite {
  name?: string;
  fields?: FormField[];
  opensAt?: string | null;
  closesAt?: string | null;
  thankYou?: string;
  followUp?: { subject: string; body: string } | null;
  creates?: Array<(typeof FORM_CREATES)[number]>;
  prayerField?: string | null;
  joinGroupId?: string | null;
}

function checkWindow(opensAt: string | null | undefined, closesAt: string | null | undefined): void {
  if (opensAt && closesAt && Date.parse(closesAt) <= Date.parse(opensAt)) throw invalid('closesAt', 'closesAt must be after opensAt');
}

async function nameFree(db: Queryable, orgId: string, name: string, except: string | null): Promise<void> {
  const clash = await queryOne(db, "SELECT 1 FROM grow_forms WHERE org_id = $1 AND lower(name) = lower($2) AND status <> 'archived' AND id IS DISTINCT FROM $3", [orgId, name, except]);
  if (clash) throw new StewardError('conflict', `A form named "${name}" exists already`, { hint: 'Choose another name, or update that form (grow_update_form).' });
}

export async function createForm(db: Queryable, orgId: string, input: Required<Pick<FormWrite, 'name' | 'fields'>> & FormWrite): Promise<FormView> {
  const creates = input.creates ?? ['contact'];
  checkFields(input.fields, creates, input);
  checkWindow(input.opensAt, input.closesAt);
  await nameFree(db, orgId, input.name, null);
  await assertJoinGroup(db, orgId, input.joinGroupId ?? null);
  const id = randomUUID();
  await db.query(`INSERT INTO grow_forms (id, org_id, name, fields, opens_at, closes_at, thank_you, follow_up_subject, follow_up_body, creates, prayer_field, join_group_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, [
    id, orgId, input.name, JSON.stringify(input.fields), input.opensAt ?? null, input.closesAt ?? null, input.thankYou ?? 'Thank you: we have your answers.',
    input.followUp?.subject ?? null, input.followUp?.body ?? null, creates, input.prayerField ?? null, input.joinGroupId ?? null,
  ]);
  await db.query('INSERT INTO grow_form_revisions (org_id, form_id, revision, fields) VALUES ($1, $2, 1, $3)', [orgId, id, JSON.stringify(input.fields)]);
  return formView((await getFormRow(db, orgId, id))!);
}

/** Changes a form; changed fields make a new revision (submissions already made keep the one they answered). An archived form changes no more. */
export async function updateForm(db: Queryable, orgId: string, formId: string, input: FormWrite): Promise<{ form: FormView; newRevision: boolean }> {
  const row = await requireForm(db, orgId, formId, true);
  if (row.status === 'archived') throw new StewardError('conflict', 'This form is archived and changes no more', { details: { reason: 'form_archived' }, hint: 'Create a new form.' });
  const fields = input.fields ?? row.fields;
  const creates = input.creates ?? row.creates;
  // A setting goes with what it is for: dropping prayer_request or group_join_request from creates clears it.
  const prayerField = input.prayerField !== undefined ? input.prayerField : creates.includes('prayer_request') ? row.prayer_field : null;
  const joinGroupId = input.joinGroupId !== undefined ? input.joinGroupId : creates.includes('group_join_request') ? row.join_group_id : null;
  checkFields(fields, creates, { prayerField, joinGroupId });
  if (input.joinGroupId) await assertJoinGroup(db, orgId, input.joinGroupId);
  const opensAt = input.opensAt !== undefined ? input.opensAt : iso(row.opens_at);
  const closesAt = input.closesAt !== undefined ? input.closesAt : iso(row.closes_at);
  checkWindow(opensAt, closesAt);
  if (input.name) await nameFree(db, orgId, input.name, formId);
  const newRevision = input.fields !== undefined && JSON.stringify(input.fields) !== JSON.stringify(row.fields);
  const revision = newRevision ? row.revision + 1 : row.revision;
  if (newRevision) await db.query('INSERT INTO grow_form_revisions (org_id, form_id, revision, fields) VALUES ($1, $2, $3, $4)', [orgId, formId, revision, JSON.stringify(fields)]);
  const followUp = input.followUp !== undefined ? input.followUp : (row.follow_up_subject ? { subject: row.follow_up_subject, body: row.follow_up_body! } : null);
  await db.query(`UPDATE grow_forms SET name = $3, fields = $4, revision = $5, opens_at = $6, closes_at = $7, thank_you = $8, follow_up_subject = $9, follow_up_body = $10,
      creates = $11, prayer_field = $12, join_group_id = $13, updated_at = now() WHERE org_id = $1 AND id = $2`, [
    orgId, formId, input.name ?? row.name, JSON.stringify(fields), revision, opensAt, closesAt, input.thankYou ?? row.thank_you, followUp?.subject ?? null, followUp?.body ?? null, creates,
    prayerField, joinGroupId,
  ]);
  return { form: formView((await getFormRow(db, orgId, formId))!), newRevision };
}

/** draft or closed → published; published again changes nothing (alreadyPublished). */
export async function publishForm(db: Queryable, orgId: string, formId: string): Promise<{ form: FormView; alreadyPublished: boolean }> {
  const row = await requireForm(db, orgId, formId, true);
  if (row.status === 'published') return { form: formView(row), alreadyPublished: true };
  if (row.status === 'archived') throw new StewardError('conflict', 'This form is archived and cannot be published', { details: { reason: 'form_archived' } });
  if (row.closes_at && row.closes_at.getTime() <= Date.now()) {
    throw new StewardError('conflict', 'This form\'s window has ended (closesAt is past)', { details: { reason: 'window_ended' }, hint: 'Move closesAt with grow_update_form first.' });
  }
  await db.query("UPDATE grow_forms SET status = 'published', published_at = COALESCE(published_at, now()), closed_at = NULL, updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, formId]);
  return { form: formView((await getFormRow(db, orgId, formId))!), alreadyPublished: false };
}

/** published → closed (no more submissions), or → archived (kept, never shown again). */
export async function closeForm(db: Queryable, orgId: string, formId: string, archive: boolean): Promise<{ form: FormView; changed: boolean }> {
  const row = await requireForm(db, orgId, formId, true);
  const target: FormStatus = archive ? 'archived' : 'closed';
  if (row.status === target) return { form: formView(row), changed: false };
  if (row.status === 'archived') throw new StewardError('conflict', 'This form is archived already', { details: { reason: 'form_archived' } });
  if (!archive && row.status === 'draft') throw new StewardError('conflict', 'This form was never published; archive it instead (archive: true)', { details: { reason: 'form_draft' } });
  await db.query('UPDATE grow_forms SET status = $3, closed_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, formId, target]);
  return { form: formView((await getFormRow(db, orgId, formId))!), changed: true };
}

export async function listForms(db: Queryable, orgId: string, status: FormStatus | undefined, limit: number): Promise<Array<FormView & { submissions: number }>> {
  const rows = await queryRows<FormRow & { submissions: number }>(db, `SELECT f.*, (SELECT count(*)::int FROM grow_submissions s WHERE s.org_id = f.org_id AND s.form_id = f.id) AS submissions
    FROM grow_forms f WHERE f.org_id = $1 AND ($2::text IS NULL OR f.status = $2) ORDER BY f.created_at DESC, f.id DESC LIMIT $3`, [orgId, status ?? null, limit]);
  return rows.map((row) => ({ ...formView(row), submissions: row.submissions }));
}

// ---------------------------------------------------------------- answers

export type Answer = string | boolean | null;
export interface FieldError { key: string; message: string }

const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,190}\.[^\s@<>"]{2,}$/;
const PHONE = /^\+?[0-9 ()-]{6,24}$/;
export const MAX_TEXT_ANSWER = 2000;

/**
 * Reads a submission's raw values against the form's fields: every answer checked (length, email,
 * phone, date, a choice among the options, boxes ticked only when the person ticked them), unknown
 * names ignored. Returns the answers, or every problem by field.
 */
export function readAnswers(fields: readonly FormField[], raw: URLSearchParams): { answers: Record<string, Answer> } | { errors: FieldError[] } {
  const answers: Record<string, Answer> = {};
  const errors: FieldError[] = [];
  for (const field of fields) {
    const values = raw.getAll(field.key);
    const value = (values[0] ?? '').trim();
    if (values.length > 1) {
      errors.push({ key: field.key, message: 'was given more than once' });
      continue;
    }
    if (field.type === 'checkbox' || field.type === 'consent' || field.type === 'guardian_consent') {
      const ticked = value === 'yes';
      if (value !== '' && value !== 'yes') errors.push({ key: field.key, message: 'is not a box value' });
      else if (field.required && !ticked) errors.push({ key: field.key, message: field.type === 'checkbox' ? 'must be ticked' : 'needs your agreement to go on' });
      answers[field.key] = ticked;
      continue;
    }
    if (value === '') {
      if (field.required) errors.push({ key: field.key, message: 'is required' });
      answers[field.key] = null;
      continue;
    }
    if (value.length > MAX_TEXT_ANSWER) errors.push({ key: field.key, message: `is longer than ${MAX_TEXT_ANSWER} characters` });
    else if (field.type === 'email' && (!EMAIL.test(value) || value.length > 254)) errors.push({ key: field.key, message: 'is not an email address' });
    else if (field.type === 'phone' && !PHONE.test(value)) errors.push({ key: field.key, message: 'is not a phone number' });
    else if (field.type === 'date' && (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))) errors.push({ key: field.key, message: 'is not a date (YYYY-MM-DD)' });
    else if (field.type === 'choice' && !field.options!.includes(value)) errors.push({ key: field.key, message: 'is not one of the options' });
    answers[field.key] = field.type === 'email' ? value.toLowerCase() : value;
  }
  return errors.length > 0 ? { errors } : { answers };
}

/** Why a form takes no submissions now, or null when it does. */
export function formClosedReason(row: Pick<FormRow, 'status' | 'opens_at' | 'closes_at'>, now: Date): string | null {
  if (row.status !== 'published') return 'This form is not taking answers.';
  if (row.opens_at && row.opens_at.getTime() > now.getTime()) return 'This form is not open yet.';
  if (row.closes_at && row.closes_at.getTime() <= now.getTime()) return 'This form has closed.';
  return null;
}

// ---------------------------------------------------------------- submissions

export interface SubmissionOutcome {
  submissionId: string;
  contactId: string | null;
  contactOutcome: 'created' | 'matched' | 'none';
  matchedOn: string[];
  guestCardId: string | null;
  prayerRequestId: string | null;
  joinRequestId: string | null;
  joinOutcome: string | null;
  /** The follow-up email queued in the channels outbox, handed over after the commit. */
  followUpMessageId: string | null;
}

/**
 * Records one submission in the caller's transaction: the contact is matched (email, phone or full
 * name; reported) or created, under a lock on the person's identity so two submissions at once from
 * the same person never make two contacts; then the guest card when the form asks for one.
 */
export async function recordSubmission(
  db: Queryable, org: OrgSettings, form: FormRow, answers: Record<string, Answer>, pageId: string | null,
): Promise<SubmissionOutcome> {
  const id = randomUUID();
  const contactValues: Record<string, string> = {};
  for (const field of form.fields) {
    const answer = answers[field.key];
    if (field.contactField && typeof answer === 'string' && answer) contactValues[field.contactField] = answer;
  }
  let contactId: string | null = null;
  let contactOutcome: SubmissionOutcome['contactOutcome'] = 'none';
  let matchedOn: string[] = [];
  const identifiable = contactValues.email || contactValues.phone || (contactValues.firstName && contactValues.lastName);
  if (form.creates.includes('contact') && identifiable) {
    const identity = contactValues.email ?? contactValues.phone?.replace(/\D/g, '').slice(-10) ?? `${contactValues.firstName} ${contactValues.lastName}`.toLowerCase();
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`grow-contact:${org.id}:${identity}`]);
    const matches = await findLikelyDuplicates(db, org.id, contactValues);
    const best = matches.find((m) => m.matchedOn.includes('email')) ?? matches.find((m) => m.matchedOn.includes('phone')) ?? matches[0];
    if (best) {
      contactId = best.id;
      contactOutcome = 'matched';
      matchedOn = best.matchedOn;
    } else if (contactValues.email || (contactValues.firstName && contactValues.lastName)) {
      const created = await createContact(db, org, contactValues);
      contactId = created.id;
      contactOutcome = 'created';
    }
  }
  let guestCardId: string | null = null;
  if (contactId && form.creates.includes('guest_card')) {
    guestCardId = (await openGuestCard(db, org.id, { contactId, source: 'manual', note: `From the form "${form.name}"` })).cardId;
  }
  const actions = await runSubmissionActions(db, org.id, form, { id, contactId, answers });
  await db.query(`INSERT INTO grow_submissions (id, org_id, form_id, revision, page_id, answers, contact_id, contact_outcome, matched_on, guest_card_id,
      prayer_request_id, join_request_id, join_outcome, follow_up_message_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, [
    id, org.id, form.id, form.revision, pageId, JSON.stringify(answers), contactId, contactOutcome, matchedOn, guestCardId,
    actions.prayerRequestId, actions.joinRequestId, actions.joinOutcome, actions.followUpMessageId,
  ]);
  return { submissionId: id, contactId, contactOutcome, matchedOn, guestCardId, ...actions };
}

export interface SubmissionView {
  id: string;
  formId: string;
  revision: number;
  pageId: string | null;
  answers: Record<string, Answer> | null;
  questions: Array<{ key: string; label: string; type: string }>;
  contactId: string | null;
  contactOutcome: string;
  matchedOn: string[];
  guestCardId: string | null;
  prayerRequestId: string | null;
  joinRequestId: string | null;
  joinOutcome: string | null;
  followUpMessageId: string | null;
  submittedAt: string;
}

interface SubmissionRow {
  id: string; form_id: string; revision: number; page_id: string | null; answers: Record<string, Answer> | null; contact_id: string | null; contact_outcome: string;
  matched_on: string[]; guest_card_id: string | null; created_at: Date; fields: FormField[];
  prayer_request_id: string | null; join_request_id: string | null; join_outcome: string | null; follow_up_message_id: string | null;
}

function submissionView(row: SubmissionRow): SubmissionView {
  return {
    id: row.id, formId: row.form_id, revision: row.revision, pageId: row.page_id, answers: row.answers,
    questions: row.fields.map((field) => ({ key: field.key, label: field.label, type: field.type })),
    contactId: row.contact_id, contactOutcome: row.contact_outcome, matchedOn: row.matched_on, guestCardId: row.guest_card_id,
    prayerRequestId: row.prayer_request_id, joinRequestId: row.join_request_id, joinOutcome: row.join_outcome, followUpMessageId: row.follow_up_message_id, submittedAt: row.created_at.toISOString(),
  };
}

const SELECT_SUBMISSION = `SELECT s.*, r.fields FROM grow_submissions s JOIN grow_form_revisions r ON r.form_id = s.form_id AND r.revision = s.revision`;

export async function getSubmission(db: Queryable, orgId: string, submissionId: string): Promise<SubmissionView> {
  const row = await queryOne<SubmissionRow>(db, `${SELECT_SUBMISSION} WHERE s.org_id = $1 AND s.id = $2`, [orgId, submissionId]);
  if (!row) throw notFound('Submission', submissionId, 'grow_list_submissions lists a form\'s submissions.');
  return submissionView(row);
}

/** Newest first; `before` is the previous page's last submittedAt/id. */
export async function listSubmissions(
  db: Queryable, orgId: string, input: { formId: string; limit: number; offset?: number; contactId?: string },
): Promise<{ submissions: SubmissionView[]; total: number }> {
  await requireForm(db, orgId, input.formId);
  const rows = await queryRows<SubmissionRow>(db, `${SELECT_SUBMISSION} WHERE s.org_id = $1 AND s.form_id = $2 AND ($3::uuid IS NULL OR s.contact_id = $3)
    ORDER BY s.created_at DESC, s.id DESC LIMIT $4 OFFSET $5`, [orgId, input.formId, input.contactId ?? null, input.limit, input.offset ?? 0]);
  const total = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM grow_submissions WHERE org_id = $1 AND form_id = $2 AND ($3::uuid IS NULL OR contact_id = $3)',
    [orgId, input.formId, input.contactId ?? null]);
  return { submissions: rows.map(submissionView), total: total?.n ?? 0 };
}

/** A CSV cell: quoted, quotes doubled, and a leading = + - @ neutralised so a spreadsheet never runs it as a formula. */
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? '' : typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

export const MAX_EXPORT_ROWS = 10_000;

/** Every submission of a form as CSV, oldest first: one column per field of the current revision (answers to fields since removed are kept under their keys), then what the submission created. */
export async function exportSubmissions(db: Queryable, orgId: string, formId: string): Promise<{ csv: string; rows: number; truncated: boolean }> {
  const form = await requireForm(db, orgId, formId);
  const rows = await queryRows<SubmissionRow>(db, `${SELECT_SUBMISSION} WHERE s.org_id = $1 AND s.form_id = $2 ORDER BY s.created_at, s.id LIMIT $3`, [orgId, formId, MAX_EXPORT_ROWS + 1]);
  const truncated = rows.length > MAX_EXPORT_ROWS;
  const kept = rows.slice(0, MAX_EXPORT_ROWS);
  const keys = form.fields.map((field) => field.key);
  for (const row of kept) for (const key of Object.keys(row.answers ?? {})) if (!keys.includes(key)) keys.push(key);
  const header = ['submitted_at', 'submission_id', 'revision', ...keys, 'contact_id', 'contact_outcome', 'guest_card_id'];
  const lines = [header.map(csvCell).join(',')];
  for (const row of kept) {
    lines.push([row.created_at.toISOString(), row.id, row.revision, ...keys.map((key) => row.answers?.[key] ?? null), row.contact_id, row.contact_outcome, row.guest_card_id].map(csvCell).join(','));
  }
  return { csv: `${lines.join('\r\n')}\r\n`, rows: kept.length, truncated };
}
