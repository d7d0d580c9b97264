import { randomUUID } from 'node:crypto';
import type { OutreachChannel } from '../../../../core/approvals';
import type { Queryable } from '../../../../db/pool';
import { createOutreachItem, type OutreachItem } from '../../outreach';
import type { LifeEventType } from './constants';
import { contactNameOf, isRestrictedLifeEvent, requireVisibleLifeEvent, type LifeEvent } from './service';

/**
 * A draft message about a life event, queued as a pending_review outreach item: a person reads,
 * edits and approves it (people_approve_outreach) before anything is sent. Never sent from here.
 */

/** What the message says about each kind of event; the person approving it may reword it. */
const CELEBRATE_LINES: Partial<Record<LifeEventType, string>> = {
  birth: 'Congratulations on the arrival of your little one! We are thanking God with you.',
  adoption: 'Congratulations on welcoming a new member into your family! We are rejoicing with you.',
  marriage: 'Congratulations on your marriage! We are praying for every blessing on your life together.',
  engagement: 'Congratulations on your engagement! We are so happy for you both.',
  recovery: 'We were so glad to hear you are on the mend. We have been praying for you.',
  new_job: 'Congratulations on your new job! We are praying it goes really well.',
  retirement: 'Congratulations on your retirement! Thank you for all you have given, and enjoy this new season.',
  graduation: 'Congratulations on your graduation! All that hard work has paid off.',
  baptism: 'What a joy it was to celebrate your baptism. We are so glad to be on this journey with you.',
  confirmation: 'What a joy to celebrate your confirmation with you.',
  anniversary: 'Happy anniversary! We are thankful for you and praying for the year ahead.',
};

const SUPPORT_LINES: Partial<Record<LifeEventType, string>> = {
  bereavement: 'We were so sorry to hear of your loss. You are in our thoughts and prayers, and we are here for you whenever you need us.',
  illness: 'We were sorry to hear you have been unwell. We are praying for you and would love to help in any way we can.',
  hospitalisation: 'We heard you have been in hospital and wanted you to know we are praying for you. Let us know if there is anything you need.',
  surgery: 'We are praying for you around your operation and for a good recovery. Do let us know if there is anything we can do.',
  job_loss: 'We were sorry to hear about your job. We are praying for you and would be glad to help in any practical way.',
  moving: 'We heard about your move and hope you are settling in well. Do let us know if we can help.',
};

const GENERIC_SUPPORT = 'We have been thinking of you and wanted you to know we are praying for you. Do let us know if there is anything we can do.';
const GENERIC_CELEBRATE = 'We heard your news and wanted to say how happy we are for you!';

/**
 * The draft. For a restricted event the text names nothing about it: the outreach queue is read with
 * people:read, and the event's nature must not reach it; the approver with safeguarding may add more.
 */
export function draftOf(event: LifeEvent, firstName: string, organisation: string, channel: OutreachChannel): { subject: string | null; body: string; reason: string } {
  const restricted = isRestrictedLifeEvent(event);
  const line = restricted
    ? GENERIC_SUPPORT
    : event.intent === 'celebrate' ? CELEBRATE_LINES[event.type] ?? GENERIC_CELEBRATE : SUPPORT_LINES[event.type] ?? GENERIC_SUPPORT;
  const body = channel === 'email'
    ? `Dear ${firstName},\n\n${line}\n\nWith love,\n${organisation}`
    : `Hi ${firstName}, ${line} – ${organisation}`;
  const subject = channel !== 'email' ? null : restricted ? `Thinking of you, ${firstName}` : event.intent === 'celebrate' ? `Congratulations, ${firstName}!` : `Thinking of you, ${firstName}`;
  const reason = restricted ? 'A pastoral message about a confidential life event' : `Life event: ${event.title} (${event.eventDate})`;
  return { subject, body, reason };
}

export async function generateLifeEventMessage(
  db: Queryable, org: { id: string; name: string }, userId: string, canSeeRestricted: boolean,
  input: { lifeEventId: string; channel: OutreachChannel },
): Promise<{ item: OutreachItem; lifeEventId: string }> {
  const event = await requireVisibleLifeEvent(db, org.id, input.lifeEventId, canSeeRestricted);
  const { firstName } = await contactNameOf(db, org.id, event.contactId);
  const draft = draftOf(event, firstName, org.name, input.channel);
  const item = await createOutreachItem(db, org.id, {
    id: randomUUID(), contactId: event.contactId, channel: input.channel, subject: draft.subject, body: draft.body,
    source: 'manual', reason: draft.reason, createdByUserId: userId, templated: true,
  });
  return { item, lifeEventId: event.id };
}
