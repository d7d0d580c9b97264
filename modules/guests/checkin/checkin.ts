import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { StewardError } from '../../../core/errors';
import type { Role } from '../../../core/roles';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { requireContact } from '../../people/api';
import { listHousehold } from '../../people/api';
import { hasCurrentSafeguardingCheck } from '../../people/api';
import { getInstance, type ServiceInstance } from '../../schedule/api';
import { randomSecurityCode } from './codes';
import { labelsFor, mayReadMedical, type Labels } from './labels';
import {
  childProfiles, getCheckinSettings, getHub, locationView, requireLocation, requireStation, serviceSettingsFor,
  type CheckinSettings, type ChildProfile, type LocationRow, type LocationView, type StationView,
} from './setup';

export const PERSON_KINDS = ['child', 'adult', 'volunteer'] as const;
export type PersonKind = (typeof PERSON_KINDS)[number];

/** Who is checking people in: the organisation, the person acting and their role (which decides who may read medical notes). */
export interface Caller {
  orgId: string;
  userId: string;
  role: Role;
}

export interface Arrival {
  contactId: string;
  locationId: string;
  kind: PersonKind;
  /** The child's school grade today, when the profile has none or it changed. */
  grade?: number;
}

export interface CheckinRequest {
  instanceId: string;
  stationId: string;
  arrivals: readonly Arrival[];
  /** At a manned or roster station: why a child outside a location's age or grade range goes in anyway (recorded). */
  overrideReason?: string;
}

export interface GateNote {
  gate: 'capacity' | 'ratio' | 'age' | 'grade';
  message: string;
}

export interface RecordedOverride {
  gate: 'age' | 'grade';
  reason: string;
  byUserId: string;
  at: string;
}

export interface CheckedIn {
  id: string;
  contactId: string;
  name: string;
  personKind: PersonKind;
  locationId: string;
  locationName: string;
  firstTime: boolean;
  checkedInAt: string;
  warnings: GateNote[];
  overrides: RecordedOverride[];
}

export interface CheckinResult {
  groupId: string;
  instanceId: string;
  localDate: string;
  /** One code for everyone checked in by this call; null when no child was. */
  securityCode: string | null;
  checkins: CheckedIn[];
  labels: Labels;
}

/** A check-in gate refused the call; the details name the gate and the figures it used. */
function refused(gate: string, message: string, hint: string, details: Record<string, unknown> = {}): StewardError {
  return new StewardError('conflict', message, { hint, details: { gate, ...details } });
}

/** Whole years from a date of birth to the service's local date. */
export function ageOn(dateOfBirth: string, localDate: string): number {
  const [by, bm, bd] = dateOfBirth.split('-').map(Number);
  const [y, m, d] = localDate.split('-').map(Number);
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0);
}

interface Person { contactId: string; name: string; dateOfBirth: string | null }

async function peopleOf(db: Queryable, orgId: string, arrivals: readonly Arrival[]): Promise<Map<string, Person>> {
  const people = new Map<string, Person>();
  for (const arrival of arrivals) {
    const contact = await requireContact(db, orgId, arrival.contactId);
    people.set(contact.id, { contactId: contact.id, name: contact.displayName, dateOfBirth: contact.dateOfBirth ?? null });
  }
  return people;
}

function assertDistinct(arrivals: readonly Arrival[]): void {
  const seen = new Set<string>();
  for (const [index, arrival] of arrivals.entries()) {
    if (seen.has(arrival.contactId)) {
      throw new StewardError('validation_failed', 'The same person is listed twice', { issues: [{ path: `arrivals.${index}.contactId`, message: 'listed more than once' }] });
    }
    seen.add(arrival.contactId);
  }
}

async function requireOpenInstance(db: Queryable, orgId: string, instanceId: string): Promise<ServiceInstance> {
  const instance = await getInstance(db, orgId, instanceId);
  if (instance.status === 'cancelled') {
    throw refused('instance', `The service on ${instance.localDate} at ${instance.localStartTime} is cancelled`, 'Check people in to another service instance (guests_list_services_today).');
  }
  return instance;
}

/** A time in the service's own zone, as a person there reads it: "Sun 29 Nov 09:30". */
const localWhen = (at: Date, zone: string) => DateTime.fromJSDate(at, { zone }).toFormat('ccc d LLL HH:mm');

/**
 * Check-in to a service is open from `checkinOpensMinutesBefore` before it starts until
 * `checkinClosesMinutesAfter` after it ends (organisation settings). Outside that, nobody is checked
 * in (refused before anything is written); checking out is never refused by the window.
 */
function assertWindowOpen(instance: ServiceInstance, settings: CheckinSettings, now: Date): void {
  const opensAt = new Date(Date.parse(instance.startsAt) - settings.checkinOpensMinutesBefore * 60_000);
  const closesAt = new Date(Date.parse(instance.endsAt) + settings.checkinClosesMinutesAfter * 60_000);
  if (now >= opensAt && now <= closesAt) return;
  const service = `${instance.title} on ${instance.localDate} at ${instance.localStartTime}`;
  const early = now < opensAt;
  const message = early
    ? `Check-in for ${service} is not open yet: it opens at ${localWhen(opensAt, instance.timeZone)} (${instance.timeZone})`
    : `Check-in for ${service} has closed: it closed at ${localWhen(closesAt, instance.timeZone)} (${instance.timeZone})`;
  throw refused('checkin_closed', message,
    `Check people in to a service happening now (guests_list_services_today)${early ? ', or come back when check-in opens' : ''}; the window is set with guests_update_settings (checkinOpensMinutesBefore, checkinClosesMinutesAfter). Children already checked in can still be checked out.`,
    { instanceId: instance.id, opensAt: opensAt.toISOString(), closesAt: closesAt.toISOString(), window: early ? 'not_open_yet' : 'closed' });
}

/**
 * The locations of this call, locked in id order (two calls touching the same rooms never
 * deadlock): every capacity and ratio figure below is read under these locks, so concurrent
 * check-ins into one room are decided one after another.
 */
async function lockLocations(db: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, LocationView>> {
  const unique = [...new Set(ids)].sort();
  const rows = await queryRows<LocationRow>(db, 'SELECT * FROM guests_locations WHERE org_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL ORDER BY id FOR UPDATE', [orgId, unique]);
  const found = new Map(rows.map((row) => [row.id, locationView(row)]));
  for (const id of unique) {
    if (!found.has(id)) throw new StewardError('not_found', `Location ${id} was not found`, { hint: 'guests_list_locations lists the locations.' });
  }
  return found;
}

interface RoomCount { children: number; adults: number; volunteers: number }

async function roomCounts(db: Queryable, orgId: string, instanceId: string, locationIds: readonly string[]): Promise<Map<string, RoomCount>> {
  const rows = await queryRows<{ location_id: string; person_kind: PersonKind; n: number }>(db, `SELECT location_id, person_kind, count(*)::int AS n
    FROM guests_checkins WHERE org_id = $1 AND instance_id = $2 AND location_id = ANY($3::uuid[]) AND checked_out_at IS NULL
    GROUP BY location_id, person_kind`, [orgId, instanceId, locationIds]);
  const counts = new Map(locationIds.map((id) => [id, { children: 0, adults: 0, volunteers: 0 }]));
  for (const row of rows) {
    const count = counts.get(row.location_id)!;
    if (row.person_kind === 'child') count.children = row.n;
    else if (row.person_kind === 'adult') count.adults = row.n;
    else count.volunteers = row.n;
  }
  return counts;
}

async function assertNotAlreadyIn(db: Queryable, orgId: string, instanceId: string, people: Map<string, Person>): Promise<void> {
  const open = await queryOne<{ contact_id: string; location_name: string }>(db, `SELECT c.contact_id, l.name AS location_name
    FROM guests_checkins c JOIN guests_locations l ON l.id = c.location_id
    WHERE c.org_id = $1 AND c.instance_id = $2 AND c.contact_id = ANY($3::uuid[]) AND c.checked_out_at IS NULL LIMIT 1`, [orgId, instanceId, [...people.keys()]]);
  if (open) {
    throw refused('already_checked_in', `${people.get(open.contact_id)!.name} is already checked in to ${open.location_name} for this service`,
      'Check them out first, or reprint their label with guests_reprint_label.', { contactId: open.contact_id });
  }
}

/** Age and grade filters: refused at a self station; at a manned or roster station, overridden with a recorded reason. */
function filterGates(
  arrival: Arrival, person: Person, profile: ChildProfile | undefined, location: LocationView, instance: ServiceInstance,
  station: StationView, caller: Caller, overrideReason: string | undefined,
): RecordedOverride[] {
  const overrides: RecordedOverride[] = [];
  const failures: Array<{ gate: 'age' | 'grade'; message: string }> = [];
  if (location.minAge !== null || location.maxAge !== null) {
    const age = person.dateOfBirth ? ageOn(person.dateOfBirth, instance.localDate) : null;
    if (age === null) failures.push({ gate: 'age', message: `${person.name} has no date of birth, and ${location.name} is for ages ${range(location.minAge, location.maxAge)}` });
    else if ((location.minAge !== null && age < location.minAge) || (location.maxAge !== null && age > location.maxAge)) {
      failures.push({ gate: 'age', message: `${person.name} is ${age}; ${location.name} is for ages ${range(location.minAge, location.maxAge)}` });
    }
  }
  if (location.minGrade !== null || location.maxGrade !== null) {
    const grade = arrival.grade ?? profile?.grade ?? null;
    if (grade === null) failures.push({ gate: 'grade', message: `${person.name} has no grade recorded, and ${location.name} is for grades ${range(location.minGrade, location.maxGrade)}` });
    else if ((location.minGrade !== null && grade < location.minGrade) || (location.maxGrade !== null && grade > location.maxGrade)) {
      failures.push({ gate: 'grade', message: `${person.name} is in grade ${grade}; ${location.name} is for grades ${range(location.minGrade, location.maxGrade)}` });
    }
  }
  for (const failure of failures) {
    if (station.kind === 'self') {
      throw refused(failure.gate, failure.message, 'A leader at a manned station can check them in with an overrideReason, or choose another location.', { contactId: person.contactId, locationId: location.id });
    }
    if (!overrideReason) {
      throw refused(failure.gate, failure.message, 'Pass overrideReason to check them in anyway (it is recorded), or choose another location.', { contactId: person.contactId, locationId: location.id });
    }
    overrides.push({ gate: failure.gate, reason: overrideReason, byUserId: caller.userId, at: new Date().toISOString() });
  }
  return overrides;
}

const range = (low: number | null, high: number | null) => (low !== null && high !== null ? `${low} to ${high}` : low !== null ? `${low} and over` : `up to ${high}`);

/** Capacity (everyone but volunteers) and the children-per-volunteer ratio, after this arrival; block refuses, warn records. */
function roomGates(arrival: Arrival, location: LocationView, count: RoomCount): GateNote[] {
  const notes: GateNote[] = [];
  const next = { ...count };
  if (arrival.kind === 'child') next.children += 1;
  else if (arrival.kind === 'adult') next.adults += 1;
  else next.volunteers += 1;
  if (arrival.kind !== 'volunteer' && location.capacity !== null && next.children + next.adults > location.capacity) {
    const message = `${location.name} is full: ${count.children + count.adults} of ${location.capacity} places taken`;
    if (location.capacityMode === 'block') {
      throw refused('capacity', message, 'Choose another location, or raise its capacity with guests_update_location.', { locationId: location.id, capacity: location.capacity, present: count.children + count.adults });
    }
    notes.push({ gate: 'capacity', message });
  }
  if (arrival.kind === 'child' && location.childrenPerAdult !== null && next.children > next.volunteers * location.childrenPerAdult) {
    const message = `${location.name} would have ${next.children} children for ${next.volunteers} checked-in leader${next.volunteers === 1 ? '' : 's'} (at most ${location.childrenPerAdult} per leader)`;
    if (location.ratioMode === 'block') {
      throw refused('ratio', message, 'Check in another leader as a volunteer first, or choose another location.', { locationId: location.id, children: count.children, volunteers: count.volunteers, childrenPerAdult: location.childrenPerAdult });
    }
    notes.push({ gate: 'ratio', message });
  }
  Object.assign(count, next);
  return notes;
}

async function backgroundGate(db: Queryable, orgId: string, person: Person, location: LocationView, instance: ServiceInstance): Promise<void> {
  if (!location.backgroundCheckRequired) return;
  const cleared = await hasCurrentSafeguardingCheck(db, orgId, person.contactId, instance.localDate, location.backgroundCheckType ?? undefined);
  if (!cleared) {
    throw refused('background_check', `${person.name} has no current${location.backgroundCheckType ? ` ${location.backgroundCheckType}` : ''} safeguarding check, which ${location.name} requires of its volunteers`,
      'Record a cleared check with people_create_safeguarding_check, or have them serve where none is required.', { contactId: person.contactId, locationId: location.id });
  }
}

/** A random code no open group of the same day holds; the partial unique index decides races, so a clash just draws again. */
async function openGroup(db: Queryable, caller: Caller, instance: ServiceInstance, stationId: string, withCode: boolean, codeLength: number): Promise<{ id: string; code: string | null }> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const id = randomUUID();
    const code = withCode ? randomSecurityCode(codeLength) : null;
    const row = await queryOne<{ id: string }>(db, `INSERT INTO guests_checkin_groups (id, org_id, instance_id, local_date, security_code, station_id, checked_in_by_user_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7)
      ON CONFLICT (org_id, local_date, security_code) WHERE security_code IS NOT NULL AND released_at IS NULL DO NOTHING RETURNING id`,
    [id, caller.orgId, instance.id, instance.localDate, code, stationId, caller.userId]);
    if (row) return { id, code };
  }
  throw new StewardError('conflict', 'No free security code could be drawn for today', { hint: 'Raise the security code length with guests_update_settings.' });
}

/**
 * Checks people in, all or none: every gate is checked inside this transaction, under the
 * locations' row locks, and the whole call fails on the first refusal.
 */
export async function checkIn(db: Queryable, caller: Caller, request: CheckinRequest): Promise<CheckinResult> {
  const { orgId } = caller;
  assertDistinct(request.arrivals);
  const station = await requireStation(db, orgId, request.stationId);
  const instance = await requireOpenInstance(db, orgId, request.instanceId);
  const settings = await getCheckinSettings(db, orgId);
  assertWindowOpen(instance, settings, new Date());
  const people = await peopleOf(db, orgId, request.arrivals);
  const service = await serviceSettingsFor(db, orgId, { instanceId: instance.id, seriesId: instance.seriesId });
  const locations = await lockLocations(db, orgId, request.arrivals.map((arrival) => arrival.locationId));
  for (const location of locations.values()) {
    if (station.kind === 'roster' && station.locationId !== location.id) {
      throw refused('station', `Station ${station.name} is the roster of another room`, 'Use a manned station, or this room\'s own roster station.', { locationId: location.id });
    }
    if (service.openLocationIds.length > 0 && !service.openLocationIds.includes(location.id)) {
      throw refused('closed', `${location.name} is not open for this service`, 'Open it with guests_update_service_checkin_settings, or choose an open location.', { locationId: location.id });
    }
  }
  await assertNotAlreadyIn(db, orgId, instance.id, people);
  const counts = await roomCounts(db, orgId, instance.id, [...locations.keys()]);
  const profiles = await childProfiles(db, orgId, request.arrivals.filter((a) => a.kind === 'child').map((a) => a.contactId));
  const seenBefore = new Set((await queryRows<{ contact_id: string }>(db,
    'SELECT DISTINCT contact_id FROM guests_checkins WHERE org_id = $1 AND contact_id = ANY($2::uuid[])', [orgId, [...people.keys()]])).map((row) => row.contact_id));

  // Leaders first, so the ratio counts the volunteers arriving with the children.
  const ordered = [...request.arrivals].sort((a, b) => Number(b.kind === 'volunteer') - Number(a.kind === 'volunteer'));
  const planned: Array<{ arrival: Arrival; warnings: GateNote[]; overrides: RecordedOverride[] }> = [];
  for (const arrival of ordered) {
    const person = people.get(arrival.contactId)!;
    const location = locations.get(arrival.locationId)!;
    if (arrival.kind === 'volunteer') await backgroundGate(db, orgId, person, location, instance);
    const overrides = arrival.kind === 'child' ? filterGates(arrival, person, profiles.get(person.contactId), location, instance, station, caller, request.overrideReason) : [];
    planned.push({ arrival, overrides, warnings: roomGates(arrival, location, counts.get(location.id)!) });
  }

  const hasChildren = planned.some((item) => item.arrival.kind === 'child');
  const group = await openGroup(db, caller, instance, station.id, hasChildren, settings.securityCodeLength);
  const checkins: CheckedIn[] = [];
  for (const { arrival, warnings, overrides } of planned) {
    const id = randomUUID();
    const row = await queryOne<{ checked_in_at: Date }>(db, `INSERT INTO guests_checkins (id, org_id, group_id, instance_id, local_date, instance_ends_at, location_id,
        station_id, contact_id, person_kind, first_time, checked_in_by_user_id, warnings, overrides)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING checked_in_at`,
    [id, orgId, group.id, instance.id, instance.localDate, instance.endsAt, arrival.locationId, station.id, arrival.contactId, arrival.kind,
      !seenBefore.has(arrival.contactId), caller.userId, JSON.stringify(warnings), JSON.stringify(overrides)]);
    const location = locations.get(arrival.locationId)!;
    checkins.push({
      id, contactId: arrival.contactId, name: people.get(arrival.contactId)!.name, personKind: arrival.kind, locationId: location.id, locationName: location.name,
      firstTime: !seenBefore.has(arrival.contactId), checkedInAt: row!.checked_in_at.toISOString(), warnings, overrides,
    });
  }
  const children = checkins.filter((item) => item.personKind === 'child')
    .map((item) => ({ checkinId: item.id, contactId: item.contactId, name: item.name, locationName: item.locationName }));
  return {
    groupId: group.id, instanceId: instance.id, localDate: instance.localDate, securityCode: group.code, checkins,
    labels: labelsFor(children, group.code, profiles, service.labelOptions, mayReadMedical(caller.role, settings)),
  };
}

/** A household's children and adults at once, under one security code; everyone named must belong to the household. */
export async function checkInHousehold(
  db: Queryable, caller: Caller,
  input: { instanceId: string; stationId: string; householdContactId: string; arrivals: readonly Arrival[]; overrideReason?: string },
): Promise<CheckinResult> {
  const household = await listHousehold(db, caller.orgId, input.householdContactId);
  const members = new Set(household.members.map((member) => member.contactId));
  for (const [index, arrival] of input.arrivals.entries()) {
    if (!members.has(arrival.contactId)) {
      throw new StewardError('validation_failed', 'Someone listed is not in this household', {
        issues: [{ path: `arrivals.${index}.contactId`, message: 'not a member of the household' }],
        hint: 'people_list_household shows the household; link family with people_add_family_relationship, or check them in separately with guests_check_in.',
      });
    }
  }
  return checkIn(db, caller, input);
}

/** A child checking in at the hub (kiosk): the hub's self-service station, so self-station rules apply (no overrides). */
export async function checkInChildAtHub(
  db: Queryable, caller: Caller, input: { instanceId: string; childContactId: string; locationId: string; grade?: number },
): Promise<CheckinResult> {
  // The caller's own instance, child and room first: another organisation's ids are not found, whatever the hub says.
  await getInstance(db, caller.orgId, input.instanceId);
  await requireContact(db, caller.orgId, input.childContactId);
  await requireLocation(db, caller.orgId, input.locationId);
  const hub = await getHub(db, caller.orgId);
  if (!hub.stationId) {
    throw new StewardError('conflict', 'The check-in hub has no station yet', { hint: 'Set one (a self station) with guests_update_checkin_hub.' });
  }
  return checkIn(db, caller, {
    instanceId: input.instanceId, stationId: hub.stationId,
    arrivals: [{ contactId: input.childContactId, locationId: input.locationId, kind: 'child', grade: input.grade }],
  });
}
