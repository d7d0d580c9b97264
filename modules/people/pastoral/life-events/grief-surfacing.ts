import { queryOne, queryRows, type Queryable } from '../../../../db/pool';
import { recordJobChange } from '../../../audit/api';
import { syncTimelineEntries } from '../../timeline';
import { isRestrictedRecord, type PastoralPrivacy } from '../privacy';
import { GRIEF_TOUCHPOINT_SOURCE } from './constants';

export interface SurfacedStep {
  /** False when the bereavement (or its person) is gone: the plan ends. */
  exists: boolean;
  surfaced: number;
  /** The next pending touchpoint's date (YYYY-MM-DD), or null when none is left. */
  nextDueOn: string | null;
}

/**
 * Kind of the timeline entry a surfaced touchpoint leaves. Deliberately not starting with `grief`:
 * a touchpoint coming due is a reminder, not pastoral contact, so it must not reset the welfare-due clock.
 */
export const TOUCHPOINT_DUE_KIND = 'care_touchpoint_due';

/**
 * Marks the bereavement's pending touchpoints due on or before `asOf` as due and puts each on the
 * care timeline (restricted with the bereavement). Conditional on status, so it is safe to repeat.
 */
export async function surfaceDueTouchpoints(db: Queryable, orgId: string, lifeEventId: string, asOf: string): Promise<SurfacedStep> {
  const event = await queryOne<{ contact_id: string } & { privacy: PastoralPrivacy['privacy']; confidentiality_level: PastoralPrivacy['confidentialityLevel'] }>(db, `
    SELECT e.contact_id, e.privacy, e.confidentiality_level FROM pastoral_life_events e
    JOIN contacts c ON c.id = e.contact_id AND c.org_id = e.org_id AND c.deleted_at IS NULL
    WHERE e.org_id = $1 AND e.id = $2 FOR UPDATE OF e`, [orgId, lifeEventId]);
  if (!event) return { exists: false, surfaced: 0, nextDueOn: null };
  const surfaced = await queryRows<{ id: string; label: string; due_on: string }>(db, `
    UPDATE pastoral_grief_touchpoints SET status = 'due', surfaced_at = now(), updated_at = now()
    WHERE org_id = $1 AND life_event_id = $2 AND status = 'pending' AND due_on <= $3::date
    RETURNING id, label, to_char(due_on, 'YYYY-MM-DD') AS due_on`, [orgId, lifeEventId, asOf]);
  const restricted = isRestrictedRecord({ privacy: event.privacy, confidentialityLevel: event.confidentiality_level });
  await syncTimelineEntries(db, orgId, surfaced.map((touchpoint) => ({
    contactId: event.contact_id, kind: TOUCHPOINT_DUE_KIND, sourceKind: GRIEF_TOUCHPOINT_SOURCE, sourceId: touchpoint.id,
    summary: `Grief care: touchpoint "${touchpoint.label}" is due`, restricted,
  })));
  // One event per touchpoint the plan surfaced (pastoral, by its noun): the label is a person's wording about a bereavement, so only ids and dates.
  for (const touchpoint of surfaced) {
    await recordJobChange(db, {
      orgId, channel: 'job:people.grief_plan', module: 'people', noun: 'grief_touchpoint', verb: 'update', target: { type: 'touchpoint', id: touchpoint.id },
      fields: { status: 'due', dueOn: touchpoint.due_on, lifeEventId }, previous: { status: 'pending' }, contactIds: [event.contact_id],
    });
  }
  const next = await queryOne<{ due_on: string }>(db, `
    SELECT to_char(min(due_on), 'YYYY-MM-DD') AS due_on FROM pastoral_grief_touchpoints WHERE org_id = $1 AND life_event_id = $2 AND status = 'pending'`,
  [orgId, lifeEventId]);
  return { exists: true, surfaced: surfaced.length, nextDueOn: next?.due_on ?? null };
}
