import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { listPage, type RowOf } from '../../kit';
import { createContact, findLikelyDuplicates, requireContact } from '../../people/api';
import type { OrgSettings } from '../../tool';
import { checkRecipient } from '../../channels/api';
import { queueMessage } from '../../channels/api';
import { assertAllowance } from '../../../kernel/billing';
import { openGuestCard, recordEvent } from './cards';
import type { WelcomeCard } from './models';
import { assertTeamMember } from './stages';

export const WELCOME_CHANNELS = ['email', 'sms', 'post'] as const;
export type WelcomeChannel = (typeof WELCOME_CHANNELS)[number];

export interface WelcomeTemplate {
  key: string;
  title: string;
  channels: WelcomeChannel[];
  subject: string | null;
  body: string;
}

/**
 * The welcome cards a church can send. `{firstName}` and `{churchName}` are filled in when the card
 * is queued. Kept here until the templates module can hold guest templates of the organisation's own.
 */
export const WELCOME_TEMPLATES: readonly WelcomeTemplate[] = [
  {
    key: 'first_visit', title: 'Thank you for visiting', channels: ['email', 'post'], subject: 'Lovely to meet you at {churchName}',
    body: 'Dear {firstName},\n\nThank you for joining us at {churchName}. It was lovely to have you with us, and we hope to see you again soon. If there is anything we can do for you, just reply and let us know.\n\nWith warm wishes',
  },
  {
    key: 'first_visit_short', title: 'Thank you for visiting (text)', channels: ['sms'], subject: null,
    body: 'Hi {firstName}, thank you for joining us at {churchName}! It was great to meet you. Reply any time if we can help.',
  },
  {
    key: 'second_visit', title: 'Great to see you again', channels: ['email', 'post', 'sms'], subject: 'Great to see you again',
    body: 'Dear {firstName},\n\nIt was great to see you at {churchName} again. We would love to get to know you better: coffee after the service is on us.\n\nWith warm wishes',
  },
  {
    key: 'family_welcome', title: 'Welcome to your family', channels: ['email', 'post'], subject: 'Welcome to {churchName}',
    body: 'Dear {firstName},\n\nThank you for bringing your family to {churchName}. Our children\'s team loved meeting yours. If you have any questions about our groups for children and young people, we would be glad to help.\n\nWith warm wishes',
  },
];

export function requireTemplate(key: string, channel?: WelcomeChannel): WelcomeTemplate {
  const template = WELCOME_TEMPLATES.find((candidate) => candidate.key === key);
  if (!template) {
    throw new StewardError('not_found', `Welcome card template ${key} was not found`, { hint: `guests_list_welcome_card_templates lists them: ${WELCOME_TEMPLATES.map((t) => t.key).join(', ')}.`, issues: [{ path: 'templateKey', message: 'unknown template' }] });
  }
  if (channel && !template.channels.includes(channel)) {
    throw new StewardError('validation_failed', `Template ${key} is not written for ${channel}`, { issues: [{ path: 'channel', message: `one of ${template.channels.join(', ')}` }] });
  }
  return template;
}

const fill = (text: string, values: Record<string, string>) => text.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);

export const WELCOME_PURPOSES = ['charitable_purpose', 'service', 'marketing'] as const;
export type WelcomePurpose = (typeof WELCOME_PURPOSES)[number];

export interface WelcomeCardView {
  id: string;
  contactId: string;
  templateKey: string;
  channel: WelcomeChannel;
  status: 'queued' | 'dispatched' | 'sent' | 'cancelled';
  purpose: WelcomePurpose | null;
  channelMessageId: string | null;
  subject: string | null;
  body: string;
  queuedForUserId: string | null;
  sentAt: string | null;
  createdAt: string;
}

type WelcomeCardRow = RowOf<WelcomeCard>;

const welcomeCardView = (row: WelcomeCardRow): WelcomeCardView => ({
  id: row.id, contactId: row.contact_id, templateKey: row.template_key, channel: row.channel, status: row.status, purpose: row.purpose,
  channelMessageId: row.channel_message_id, subject: row.subject, body: row.body,
  queuedForUserId: row.queued_for_user_id, sentAt: row.sent_at?.toISOString() ?? null, createdAt: row.created_at.toISOString(),
});

export interface SentWelcomeCard {
  welcomeCard: WelcomeCardView;
  delivery: 'channels' | 'queued_for_person';
  /** The channel message dispatch sends (the tool's follow-up starts it); null for a posted card. */
  message: { id: string; status: string; deferredUntil: string | null } | null;
}

/**
 * Sends a guest a welcome card from a template. Email and text go through the channels module: consent
 * for the purpose, suppression and crisis holds are checked now (a refusal queues nothing) and again at
 * every dispatch attempt, and the message is metered once when it goes. A posted card, which channels
 * cannot deliver, needs a postal address and is queued for a person (the card's assignee, the team
 * member named, or the caller) to write and post, then mark sent.
 */
export async function sendWelcomeCard(
  db: Queryable, org: OrgSettings, actorUserId: string | null,
  input: { contactId: string; templateKey: string; channel: WelcomeChannel; purpose: WelcomePurpose; queueForUserId?: string; personalNote?: string },
): Promise<SentWelcomeCard> {
  const template = requireTemplate(input.templateKey, input.channel);
  const contact = await requireContact(db, org.id, input.contactId);
  if (input.channel === 'post' && !(contact.addressLine1 && contact.addressPostcode)) {
    throw new StewardError('conflict', `${contact.displayName} has no postal address (address line 1 and postcode), so a welcome card cannot be posted`, {
      hint: 'Add the address with people_update_contact, or send it by email or text.',
    });
  }
  if (input.queueForUserId) await assertTeamMember(db, org.id, input.queueForUserId, 'queueForUserId');
  const card = await queryOne<{ id: string; assignee_user_id: string | null }>(db, 'SELECT id, assignee_user_id FROM guests_pipeline_cards WHERE org_id = $1 AND contact_id = $2', [org.id, contact.id]);
  const values = { firstName: contact.preferredName ?? contact.firstName ?? 'friend', churchName: org.name };
  const body = fill(template.body, values) + (input.personalNote ? `\n\n${input.personalNote}` : '');
  const subject = template.subject ? fill(template.subject, values) : null;
  const id = randomUUID();
  const message = input.channel === 'post' ? null : await handToChannels(db, org.id, { id, contactId: contact.id, channel: input.channel, purpose: input.purpose, subject, body });
  await db.query(`INSERT INTO guests_welcome_cards (id, org_id, contact_id, template_key, channel, status, purpose, channel_message_id, subject, body, queued_for_user_id, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
  [id, org.id, contact.id, template.key, input.channel, message ? 'dispatched' : 'queued', message ? input.purpose : null, message?.id ?? null, subject, body,
    message ? null : (input.queueForUserId ?? card?.assignee_user_id ?? actorUserId), actorUserId]);
  if (card) await recordEvent(db, org.id, card.id, 'welcome_card_sent', { note: `${template.title} ${message ? 'sent' : 'queued'} (${input.channel})`, actorUserId });
  return { welcomeCard: await requireWelcomeCard(db, org.id, id), delivery: message ? 'channels' : 'queued_for_person', message };
}

async function handToChannels(
  db: Queryable, orgId: string, card: { id: string; contactId: string; channel: 'email' | 'sms'; purpose: WelcomePurpose; subject: string | null; body: string },
): Promise<{ id: string; status: string; deferredUntil: string | null }> {
  const check = await checkRecipient(db, orgId, { contactId: card.contactId, channel: card.channel, purpose: card.purpose, now: new Date() });
  if (!check.ok) {
    throw new StewardError('forbidden', `${check.message}, so the welcome card was not sent`, {
      hint: check.reason === 'no_consent' ? 'Record their consent with channels_record_consent, send it by post, or choose purpose service for a reply they asked for.' : check.hint,
      details: { reason: check.reason },
    });
  }
  const queued = await queueMessage(db, orgId, {
    contactId: card.contactId, channel: card.channel, purpose: card.purpose, subject: card.channel === 'email' ? card.subject : null, body: card.body,
    idempotencyKey: `guests-welcome-card:${card.id}`, usageTool: 'guests_send_welcome_card',
  });
  await assertAllowance(db, orgId, card.channel === 'email' ? 'email_sends' : 'messaging_credits', queued.message.meteredUnits);
  return { id: queued.messageId, status: queued.message.status, deferredUntil: check.quietUntil ? check.quietUntil.toISOString() : null };
}

export async function requireWelcomeCard(db: Queryable, orgId: string, id: string): Promise<WelcomeCardView> {
  const row = await queryOne<WelcomeCardRow>(db, 'SELECT * FROM guests_welcome_cards WHERE org_id = $1 AND id = $2', [orgId, id]);
  if (!row) throw new StewardError('not_found', `Welcome card ${id} was not found`, { hint: 'guests_list_welcome_cards lists them.' });
  return welcomeCardView(row);
}

/** A person sent a queued card by hand: it is marked sent, once. */
export async function markWelcomeCardSent(db: Queryable, orgId: string, actorUserId: string | null, id: string): Promise<WelcomeCardView> {
  const row = await queryOne<{ id: string }>(db, `UPDATE guests_welcome_cards SET status = 'sent', sent_at = now(), sent_by_user_id = $3
    WHERE org_id = $1 AND id = $2 AND status = 'queued' RETURNING id`, [orgId, id, actorUserId]);
  if (!row) {
    const card = await requireWelcomeCard(db, orgId, id);
    throw new StewardError('conflict', `This welcome card is already ${card.status}`, { hint: card.channelMessageId ? `It went through channels: channels_get_message with ${card.channelMessageId} shows its delivery.` : 'Only a queued card can be marked sent.' });
  }
  return requireWelcomeCard(db, orgId, id);
}

export async function listWelcomeCards(
  db: Queryable, orgId: string, filter: { contactId?: string; status?: WelcomeCardView['status']; limit: number; cursor?: string },
): Promise<{ cards: WelcomeCardView[]; nextCursor: string | null }> {
  const page = await listPage<WelcomeCardRow & { created_at: Date }>(db, {
    table: 'guests_welcome_cards', orgId, limit: filter.limit, cursor: filter.cursor, includeDeleted: true,
    where: '($4::uuid IS NULL OR contact_id = $4) AND ($5::text IS NULL OR status = $5)', values: [filter.contactId ?? null, filter.status ?? null],
  });
  return { cards: page.rows.map(welcomeCardView), nextCursor: page.nextCursor };
}

// ---------------------------------------------------------------- card submissions

export interface SubmissionInput {
  firstName: string;
  lastName?: string;
  email?: string;
  phone?: string;
  instanceId?: string;
  howHeard?: string;
  interests?: string[];
  message?: string;
}

export interface SubmissionResult {
  submissionId: string;
  contactId: string;
  contactOutcome: 'created' | 'matched';
  matchedOn: Array<'email' | 'phone' | 'name'>;
  otherCandidates: Array<{ contactId: string; displayName: string; matchedOn: Array<'email' | 'phone' | 'name'> }>;
  cardId: string;
  cardCreated: boolean;
}

const MATCH_STRENGTH = { email: 3, phone: 2, name: 1 } as const;

/**
 * A connect card a guest filled in: matched to a live contact by email, phone or full name (the
 * strongest match wins, the others are reported), or a new contact; then the guest's pipeline card
 * is opened, or the one they have is reported. Submissions of one organisation take turns, so two
 * copies of the same card arriving together make one contact and one pipeline card.
 */
export async function submitWelcomeCard(db: Queryable, org: OrgSettings, actorUserId: string | null, input: SubmissionInput): Promise<SubmissionResult> {
  if (!input.email && !input.phone && !input.lastName) {
    throw new StewardError('validation_failed', 'A welcome card needs an email, a phone number or a last name to find the guest again', {
      issues: [{ path: 'email', message: 'give email, phone or lastName' }],
    });
  }
  await db.query("SELECT pg_advisory_xact_lock(hashtext('guests_card_submissions'), hashtext($1))", [org.id]);
  const candidates = await findLikelyDuplicates(db, org.id, { email: input.email, phone: input.phone, firstName: input.firstName, lastName: input.lastName });
  const ranked = [...candidates].sort((a, b) => strength(b.matchedOn) - strength(a.matchedOn) || a.id.localeCompare(b.id));
  const best = ranked[0];
  const contactId = best?.id ?? (await createContact(db, org, { firstName: input.firstName, lastName: input.lastName, email: input.email, phone: input.phone })).id;
  const opened = await openGuestCard(db, org.id, { contactId, source: 'welcome_card', instanceId: input.instanceId ?? null, actorUserId, note: 'From a welcome card' });
  if (!opened.created) await recordEvent(db, org.id, opened.cardId, 'card_submitted', { note: 'Filled in another welcome card', actorUserId });
  const submissionId = randomUUID();
  await db.query(`INSERT INTO guests_card_submissions (id, org_id, contact_id, card_id, contact_outcome, matched_on, instance_id, first_name, last_name, email, phone, how_heard, interests, message, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
  [submissionId, org.id, contactId, opened.cardId, best ? 'matched' : 'created', best?.matchedOn ?? [], input.instanceId ?? null, input.firstName, input.lastName ?? null,
    input.email?.toLowerCase() ?? null, input.phone ?? null, input.howHeard ?? null, input.interests ?? [], input.message ?? null, actorUserId]);
  return {
    submissionId, contactId, contactOutcome: best ? 'matched' : 'created', matchedOn: best?.matchedOn ?? [],
    otherCandidates: ranked.slice(1).map((candidate) => ({ contactId: candidate.id, displayName: candidate.displayName, matchedOn: candidate.matchedOn })),
    cardId: opened.cardId, cardCreated: opened.created,
  };
}

function strength(matchedOn: ReadonlyArray<'email' | 'phone' | 'name'>): number {
  return matchedOn.reduce((sum, field) => sum + MATCH_STRENGTH[field], 0);
}

/** Submissions that created or matched contacts in a range, for the analytics summary. */
export async function submissionCounts(db: Queryable, orgId: string, from: string, to: string): Promise<{ created: number; matched: number }> {
  const rows = await queryRows<{ contact_outcome: 'created' | 'matched'; n: number }>(db, `SELECT contact_outcome, count(*)::int AS n FROM guests_card_submissions
    WHERE org_id = $1 AND created_at >= $2::date AND created_at < $3::date + 1 GROUP BY 1`, [orgId, from, to]);
  return { created: rows.find((row) => row.contact_outcome === 'created')?.n ?? 0, matched: rows.find((row) => row.contact_outcome === 'matched')?.n ?? 0 };
}
