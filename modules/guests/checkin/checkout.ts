import { StewardError } from '../../../core/errors';
import { STAFF_ROLES } from '../../../core/roles';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { notFound, type RowOf } from '../../kit';
import { requireContact } from '../../people/api';
import { listHousehold } from '../../people/api';
import type { Caller } from './checkin';
import { normaliseSecurityCode } from './codes';
import { labelsFor, mayReadMedical, type Labels } from './labels';
import type { GuestsCheckin, GuestsCheckinGroup } from './models';
import { childProfiles, getCheckinSettings, requireStation, serviceSettingsFor } from './setup';
import { getInstance } from '../../schedule/api';

type OpenRow = Pick<RowOf<InstanceType<typeof GuestsCheckin>>, 'id' | 'group_id' | 'instance_id' | 'contact_id' | 'person_kind' | 'location_id' | 'checked_out_at' | 'overrides'>
  & Pick<RowOf<InstanceType<typeof GuestsCheckinGroup>>, 'security_code'> & { location_name: string };

async function lockCheckin(db: Queryable, orgId: string, checkinId: string): Promise<OpenRow> {
  const row = await queryOne<OpenRow>(db, `SELECT c.id, c.group_id, c.instance_id, c.contact_id, c.person_kind, c.location_id, l.name AS location_name,
      g.security_code, c.checked_out_at, c.overrides
    FROM guests_checkins c JOIN guests_checkin_groups g ON g.id = c.group_id JOIN guests_locations l ON l.id = c.location_id
    WHERE c.org_id = $1 AND c.id = $2 FOR UPDATE OF c, g`, [orgId, checkinId]);
  if (!row) throw notFound('Check-in', checkinId, 'guests_get_live_roster lists who is checked in.');
  if (row.checked_out_at) {
    throw new StewardError('conflict', 'This check-in was already checked out', { hint: 'guests_get_live_roster shows who is still checked in.', details: { checkedOutAt: row.checked_out_at.toISOString() } });
  }
  return row;
}

/** Checkout happens where a leader can see who is collecting: a manned desk, or the room's own roster. */
async function requireCheckoutStation(db: Queryable, orgId: string, stationId: string, locationId: string) {
  const station = await requireStation(db, orgId, stationId);
  if (station.kind === 'self') {
    throw new StewardError('conflict', `Station ${station.name} is self-service; children are checked out only at a manned or roster station`, {
      hint: 'Use a manned station or the room\'s roster station (guests_list_stations).', details: { gate: 'station' },
    });
  }
  if (station.kind === 'roster' && station.locationId !== locationId) {
    throw new StewardError('conflict', `Station ${station.name} is the roster of another room`, { hint: 'Use this room\'s roster station or a manned station.', details: { gate: 'station' } });
  }
  return station;
}

/** The household's other members and anyone named on the child's profile may collect them. */
async function isAuthorisedPickup(db: Queryable, orgId: string, childId: string, pickupContactId: string | undefined): Promise<boolean> {
  if (!pickupContactId || pickupContactId === childId) return false;
  const household = await listHousehold(db, orgId, childId);
  if (household.members.some((member) => member.contactId === pickupContactId)) return true;
  return (await childProfiles(db, orgId, [childId])).get(childId)?.authorisedPickupIds.includes(pickupContactId) ?? false;
}

export interface CheckoutInput {
  checkinId: string;
  stationId: string;
  securityCode?: string;
  pickupContactId?: string;
  pickupName?: string;
  staffOverride?: { reason: string };
}

export interface CheckoutResult {
  checkinId: string;
  contactId: string;
  locationName: string;
  checkedOutAt: string;
  codeMatched: boolean;
  pickupAuthorised: boolean;
  /** Set whenever the person collecting is not on the child's authorised list, with or without an override. */
  flagged: boolean;
  overridden: Array<'security_code' | 'pickup'>;
  overrideReason: string | null;
  /** True once every child of the household check-in is out: the code is free again. */
  codeReleased: boolean;
}

/**
 * Checks a child out. The security code must match and the person collecting must be authorised;
 * either can be overridden only by a staff member's recorded decision, and an unauthorised pickup
 * is flagged in the result and on the record even then.
 */
export async function checkOutChild(db: Queryable, caller: Caller, input: CheckoutInput): Promise<CheckoutResult> {
  const { orgId } = caller;
  if (!input.pickupContactId && !input.pickupName) {
    throw new StewardError('validation_failed', 'Say who is collecting the child', { issues: [{ path: 'pickupContactId', message: 'give pickupContactId or pickupName' }] });
  }
  const row = await lockCheckin(db, orgId, input.checkinId);
  if (row.person_kind !== 'child') {
    throw new StewardError('conflict', 'This check-in is not a child\'s', { hint: 'Adults and volunteers leave with guests_check_out_person.' });
  }
  await requireCheckoutStation(db, orgId, input.stationId, row.location_id);
  if (input.pickupContactId) await requireContact(db, orgId, input.pickupContactId);
  const codeMatched = Boolean(input.securityCode && row.security_code && normaliseSecurityCode(input.securityCode) === row.security_code);
  const pickupAuthorised = await isAuthorisedPickup(db, orgId, row.contact_id, input.pickupContactId);
  const overridden: CheckoutResult['overridden'] = [];
  if (!codeMatched) overridden.push('security_code');
  if (!pickupAuthorised) overridden.push('pickup');
  if (overridden.length > 0) requireStaffDecision(caller, input, codeMatched, pickupAuthorised);
  const at = new Date().toISOString();
  const recorded = overridden.map((gate) => ({ gate, reason: input.staffOverride!.reason, byUserId: caller.userId, at }));
  const updated = await queryOne<{ checked_out_at: Date }>(db, `UPDATE guests_checkins SET checked_out_at = now(), checked_out_by_user_id = $3, checkout_station_id = $4,
      pickup_contact_id = $5, pickup_name = $6, pickup_authorised = $7, checkout_override_reason = $8, checkout_override_by_user_id = $9,
      overrides = overrides || $10::jsonb
    WHERE org_id = $1 AND id = $2 RETURNING checked_out_at`,
  [orgId, row.id, caller.userId, input.stationId, input.pickupContactId ?? null, input.pickupName ?? null, pickupAuthorised,
    overridden.length > 0 ? input.staffOverride!.reason : null, overridden.length > 0 ? caller.userId : null, JSON.stringify(recorded)]);
  const released = await releaseGroupIfDone(db, orgId, row.group_id);
  return {
    checkinId: row.id, contactId: row.contact_id, locationName: row.location_name, checkedOutAt: updated!.checked_out_at.toISOString(),
    codeMatched, pickupAuthorised, flagged: !pickupAuthorised, overridden, overrideReason: overridden.length > 0 ? input.staffOverride!.reason : null,
    codeReleased: released,
  };
}

function requireStaffDecision(caller: Caller, input: CheckoutInput, codeMatched: boolean, pickupAuthorised: boolean): void {
  const problem = !codeMatched
    ? (input.securityCode ? 'The security code does not match this child\'s check-in' : 'A security code is needed to check a child out')
    : 'The person collecting is not authorised to collect this child';
  if (!input.staffOverride) {
    throw new StewardError('conflict', problem, {
      hint: 'Ask for the code on the parent\'s tag. Only a staff member can override, with staffOverride.reason (recorded).',
      details: { gate: codeMatched ? 'pickup' : 'security_code', pickupAuthorised, flagged: !pickupAuthorised },
    });
  }
  if (!STAFF_ROLES.includes(caller.role)) {
    throw new StewardError('forbidden', `${problem}, and only a staff member may override it`, { hint: 'Ask a staff member to make the decision with their own credentials.' });
  }
}

/** The group's code is freed once none of its children is still checked in. */
async function releaseGroupIfDone(db: Queryable, orgId: string, groupId: string): Promise<boolean> {
  const result = await db.query(`UPDATE guests_checkin_groups g SET released_at = now() WHERE g.org_id = $1 AND g.id = $2 AND g.released_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM guests_checkins c WHERE c.group_id = g.id AND c.person_kind = 'child' AND c.checked_out_at IS NULL)`, [orgId, groupId]);
  return (result.rowCount ?? 0) > 0;
}

/** An adult or volunteer leaving (a leader going off duty changes the room's ratio). No code: their tag carries none of their own. */
export async function checkOutPerson(db: Queryable, caller: Caller, input: { checkinId: string; stationId: string }): Promise<{ checkinId: string; checkedOutAt: string }> {
  const row = await lockCheckin(db, caller.orgId, input.checkinId);
  if (row.person_kind === 'child') {
    throw new StewardError('conflict', 'Children are checked out with their security code', { hint: 'Use guests_check_out_child.' });
  }
  await requireStation(db, caller.orgId, input.stationId);
  const updated = await queryOne<{ checked_out_at: Date }>(db, `UPDATE guests_checkins SET checked_out_at = now(), checked_out_by_user_id = $3, checkout_station_id = $4
    WHERE org_id = $1 AND id = $2 RETURNING checked_out_at`, [caller.orgId, row.id, caller.userId, input.stationId]);
  return { checkinId: row.id, checkedOutAt: updated!.checked_out_at.toISOString() };
}

/** The labels of a household check-in again, with the same code (a lost or smudged label); counted on each child's record. */
export async function reprintLabels(db: Queryable, caller: Caller, checkinId: string): Promise<{ securityCode: string; labels: Labels; reprints: number }> {
  const row = await lockCheckin(db, caller.orgId, checkinId);
  if (!row.security_code) {
    throw new StewardError('conflict', 'This check-in has no child label to reprint', { hint: 'Only check-ins with children carry a security code.' });
  }
  const children = await queryRows<{ id: string; contact_id: string; location_name: string; name: string; label_reprints: number }>(db, `
    WITH reprinted AS (
      UPDATE guests_checkins c SET label_reprints = c.label_reprints + 1 FROM guests_locations l, people_directory d
      WHERE c.org_id = $1 AND c.group_id = $2 AND c.person_kind = 'child' AND c.checked_out_at IS NULL AND l.id = c.location_id AND d.id = c.contact_id
      RETURNING c.id, c.contact_id, l.name AS location_name, c.label_reprints, trim(concat_ws(' ', coalesce(d.preferred_name, d.first_name), d.last_name)) AS name)
    SELECT * FROM reprinted ORDER BY name, id`,
  [caller.orgId, row.group_id]);
  const instance = await getInstance(db, caller.orgId, row.instance_id);
  const service = await serviceSettingsFor(db, caller.orgId, { instanceId: instance.id, seriesId: instance.seriesId });
  const profiles = await childProfiles(db, caller.orgId, children.map((child) => child.contact_id));
  const settings = await getCheckinSettings(db, caller.orgId);
  const labels = labelsFor(children.map((child) => ({ checkinId: child.id, contactId: child.contact_id, name: child.name, locationName: child.location_name })),
    row.security_code, profiles, service.labelOptions, mayReadMedical(caller.role, settings));
  return { securityCode: row.security_code, labels, reprints: Math.max(0, ...children.map((child) => child.label_reprints)) };
}
