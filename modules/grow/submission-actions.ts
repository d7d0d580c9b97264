import { StewardError } from '../../core/errors';
import { assertAllowance } from '../../kernel/billing';
import { queryOne, type Queryable } from '../../db/pool';
import { checkRecipient, queueMessage } from '../channels/api';
import { groupNameOf, requestToJoinFromForm } from '../groups/api';
import { addPrayerRequest } from '../people/api';

/**
 * What a submission does beyond the contact and guest card, each through the owning module's api:
 * a prayer request (people) from one of the form's text answers, seen by the pastoral team only; a
 * join request (groups) for the form's small group, which a leader decides (or joins at once in an
 * open group); and the form's follow-up email, queued in the channels outbox. None of them can
 * refuse the submission: whatever could not be done is recorded as such and the answers stand.
 */

export const FOLLOW_UP_USAGE_TOOL = 'grow_publish_form';

export interface SubmissionActions {
  prayerRequestId: string | null;
  joinRequestId: string | null;
  joinOutcome: string | null;
  followUpMessageId: string | null;
}

export interface ActionsForm {
  id: string;
  name: string;
  creates: readonly string[];
  prayer_field: string | null;
  join_group_id: string | null;
  follow_up_subject: string | null;
  follow_up_body: string | null;
}

/** Checked when a form is saved: the group to join exists in this organisation (a foreign id behaves as a missing one). */
export async function assertJoinGroup(db: Queryable, orgId: string, groupId: string | null): Promise<void> {
  if (groupId && !(await groupNameOf(db, orgId, groupId))) {
    throw new StewardError('not_found', `Small group ${groupId} not found`, { hint: 'groups_list finds the small groups.', details: { reason: 'group_not_found' } });
  }
}

async function prayerRequestFrom(db: Queryable, orgId: string, form: ActionsForm, contactId: string, answer: unknown): Promise<string | null> {
  if (!form.creates.includes('prayer_request') || !form.prayer_field || typeof answer !== 'string' || answer.trim() === '') return null;
  try {
    const request = await addPrayerRequest(db, orgId, null, { contactId, request: answer.trim(), visibility: 'team', confidentialityLevel: 'green', urgent: false });
    return request.id;
  } catch (error) {
    // A request the people module will not keep as written (an id pasted into it) leaves the answer on the submission only.
    if (error instanceof StewardError) return null;
    throw error;
  }
}

/**
 * The follow-up email, when the form has one and the person can be emailed for a service reply
 * (suppression and crisis holds respected); nothing is queued otherwise. At most one a day per
 * person and form: a stranger typing someone else's address again and again cannot make the
 * church's form a way to flood their inbox.
 */
async function followUpFor(db: Queryable, orgId: string, form: ActionsForm, contactId: string, submissionId: string): Promise<string | null> {
  if (!form.follow_up_subject || !form.follow_up_body) return null;
  const recent = await queryOne(db, `SELECT 1 FROM grow_submissions WHERE org_id = $1 AND form_id = $2 AND contact_id = $3 AND follow_up_message_id IS NOT NULL
    AND created_at > now() - interval '1 day' LIMIT 1`, [orgId, form.id, contactId]);
  if (recent) return null;
  const check = await checkRecipient(db, orgId, { contactId, channel: 'email', purpose: 'service', now: new Date() });
  if (!check.ok) return null;
  try {
    await assertAllowance(db, orgId, 'email_sends', 1, { tool: FOLLOW_UP_USAGE_TOOL, purpose: 'service' });
  } catch (error) {
    if (error instanceof StewardError) return null;
    throw error;
  }
  const queued = await queueMessage(db, orgId, {
    contactId, channel: 'email', purpose: 'service', subject: form.follow_up_subject, body: form.follow_up_body,
    idempotencyKey: `grow-follow-up:${submissionId}`, usageTool: FOLLOW_UP_USAGE_TOOL,
  });
  return queued.messageId;
}

/** Runs in the submission's transaction, after the contact is known; the follow-up message is handed to the outbox after the commit. */
export async function runSubmissionActions(
  db: Queryable, orgId: string, form: ActionsForm, submission: { id: string; contactId: string | null; answers: Record<string, unknown> },
): Promise<SubmissionActions> {
  const none: SubmissionActions = { prayerRequestId: null, joinRequestId: null, joinOutcome: null, followUpMessageId: null };
  const contactId = submission.contactId;
  if (!contactId) return none;
  const prayerRequestId = await prayerRequestFrom(db, orgId, form, contactId, form.prayer_field ? submission.answers[form.prayer_field] : undefined);
  let joinRequestId: string | null = null;
  let joinOutcome: string | null = null;
  if (form.creates.includes('group_join_request') && form.join_group_id) {
    const joined = await requestToJoinFromForm(db, orgId, { groupId: form.join_group_id, contactId, message: `From the form "${form.name}"`.slice(0, 1000) });
    joinRequestId = joined.requestId;
    joinOutcome = joined.outcome === 'refused' ? `refused:${joined.reason ?? 'unknown'}`.slice(0, 40) : joined.outcome;
  }
  const followUpMessageId = await followUpFor(db, orgId, form, contactId, submission.id);
  return { prayerRequestId, joinRequestId, joinOutcome, followUpMessageId };
}
