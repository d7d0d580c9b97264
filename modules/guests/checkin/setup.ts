import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { notFound, softDelete, type RowOf } from '../../kit';
import { requireContact } from '../../people/api';
import { getInstance } from '../../schedule/api';
import { getSeries } from '../../schedule/api';
import type { GuestsCheckinSettings, GuestsChildProfile, GuestsLocation, GuestsServiceCheckinSettings, GuestsStation } from './models';

// ---------------------------------------------------------------- locations

export type GateMode = 'block' | 'warn';

export interface LocationFields {
  name: string;
  minAge?: number | null;
  maxAge?: number | null;
  minGrade?: number | null;
  maxGrade?: number | null;
  capacity?: number | null;
  capacityMode?: GateMode;
  childrenPerAdult?: number | null;
  ratioMode?: GateMode;
  backgroundCheckRequired?: boolean;
  backgroundCheckType?: string | null;
}

export interface LocationView extends Required<LocationFields> {
  id: string;
  createdAt: string;
  updatedAt: string;
}

/** A location as `SELECT *` reads it, typed by its model. */
export type LocationRow = RowOf<InstanceType<typeof GuestsLocation>>;

export function locationView(row: LocationRow): LocationView {
  return {
    id: row.id, name: row.name, minAge: row.min_age, maxAge: row.max_age, minGrade: row.min_grade, maxGrade: row.max_grade,
    capacity: row.capacity, capacityMode: row.capacity_mode, childrenPerAdult: row.children_per_adult, ratioMode: row.ratio_mode,
    backgroundCheckRequired: row.background_check_required, backgroundCheckType: row.background_check_type,
    createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

function assertRanges(fields: Partial<LocationFields>): void {
  const pairs: Array<[keyof LocationFields, keyof LocationFields]> = [['minAge', 'maxAge'], ['minGrade', 'maxGrade']];
  for (const [low, high] of pairs) {
    const a = fields[low] as number | null | undefined;
    const b = fields[high] as number | null | undefined;
    if (a != null && b != null && a > b) {
      throw new StewardError('validation_failed', `${low} is above ${high}`, { issues: [{ path: low, message: `must be at most ${high}` }] });
    }
  }
}

function nameTaken(error: unknown, name: string): never {
  if ((error as { code?: string }).code === '23505') {
    throw new StewardError('conflict', `A location named "${name}" already exists`, { hint: 'Choose another name, or change the existing one with guests_update_location.' });
  }
  throw error;
}

export async function listLocations(db: Queryable, orgId: string): Promise<LocationView[]> {
  const rows = await queryRows<LocationRow>(db, 'SELECT * FROM guests_locations WHERE org_id = $1 AND deleted_at IS NULL ORDER BY lower(name), id', [orgId]);
  return rows.map(locationView);
}

export async function requireLocation(db: Queryable, orgId: string, id: string): Promise<LocationView> {
  const row = await queryOne<LocationRow>(db, 'SELECT * FROM guests_locations WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [orgId, id]);
  if (!row) throw notFound('Location', id, 'guests_list_locations lists the locations.');
  return locationView(row);
}

export async function createLocation(db: Queryable, orgId: string, fields: LocationFields): Promise<LocationView> {
  assertRanges(fields);
  const row = await queryOne<LocationRow>(db, `INSERT INTO guests_locations (id, org_id, name, min_age, max_age, min_grade, max_grade, capacity,
      capacity_mode, children_per_adult, ratio_mode, background_check_required, background_check_type)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING *`,
  [randomUUID(), orgId, fields.name, fields.minAge ?? null, fields.maxAge ?? null, fields.minGrade ?? null, fields.maxGrade ?? null,
    fields.capacity ?? null, fields.capacityMode ?? 'block', fields.childrenPerAdult ?? null, fields.ratioMode ?? 'block',
    fields.backgroundCheckRequired ?? false, fields.backgroundCheckType ?? null]).catch((error: unknown) => nameTaken(error, fields.name));
  return locationView(row!);
}

const LOCATION_COLUMNS: Record<keyof LocationFields, string> = {
  name: 'name', minAge: 'min_age', maxAge: 'max_age', minGrade: 'min_grade', maxGrade: 'max_grade', capacity: 'capacity',
  capacityMode: 'capacity_mode', childrenPerAdult: 'children_per_adult', ratioMode: 'ratio_mode',
  backgroundCheckRequired: 'background_check_required', backgroundCheckType: 'background_check_type',
};

/** Changes the fields given; null clears a filter or limit. The merged ranges are checked, not only the fields sent. */
export async function updateLocation(db: Queryable, orgId: string, id: string, patch: Partial<LocationFields>): Promise<LocationView> {
  const current = await requireLocation(db, orgId, id);
  assertRanges({ ...current, ...patch });
  const entries = Object.entries(patch).filter(([, value]) => value !== undefined) as Array<[keyof LocationFields, unknown]>;
  if (entries.length === 0) return current;
  const sets = entries.map(([key], index) => `${LOCATION_COLUMNS[key]} = $${index + 3}`);
  const row = await queryOne<LocationRow>(db, `UPDATE guests_locations SET ${sets.join(', ')}, updated_at = now()
    WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING *`, [orgId, id, ...entries.map(([, value]) => value)])
    .catch((error: unknown) => nameTaken(error, String(patch.name)));
  return locationView(row!);
}

// ---------------------------------------------------------------- stations

export const STATION_KINDS = ['self', 'manned', 'roster'] as const;
export type StationKind = (typeof STATION_KINDS)[number];

export interface StationView { id: string; name: string; kind: StationKind; locationId: string | null; createdAt: string }

type StationRow = RowOf<InstanceType<typeof GuestsStation>>;

const stationView = (row: StationRow): StationView => ({ id: row.id, name: row.name, kind: row.kind, locationId: row.location_id, createdAt: row.created_at.toISOString() });

export async function listStations(db: Queryable, orgId: string): Promise<StationView[]> {
  const rows = await queryRows<StationRow>(db, 'SELECT * FROM guests_stations WHERE org_id = $1 AND deleted_at IS NULL ORDER BY lower(name), id', [orgId]);
  return rows.map(stationView);
}

export async function requireStation(db: Queryable, orgId: string, id: string): Promise<StationView> {
  const row = await queryOne<StationRow>(db, 'SELECT * FROM guests_stations WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [orgId, id]);
  if (!row) throw notFound('Check-in station', id, 'guests_list_stations lists the stations.');
  return stationView(row);
}

/** A roster station belongs to one room (it checks people in and out there); the others serve every location. */
export async function createStation(db: Queryable, orgId: string, input: { name: string; kind: StationKind; locationId?: string }): Promise<StationView> {
  if (input.kind === 'roster' && !input.locationId) {
    throw new StewardError('validation_failed', 'A roster station needs its location', { issues: [{ path: 'locationId', message: 'required for a roster station' }] });
  }
  if (input.locationId) await requireLocation(db, orgId, input.locationId);
  const row = await queryOne<StationRow>(db, 'INSERT INTO guests_stations (id, org_id, name, kind, location_id) VALUES ($1, $2, $3, $4, $5) RETURNING *',
    [randomUUID(), orgId, input.name, input.kind, input.locationId ?? null]);
  return stationView(row!);
}

export async function deleteStation(db: Queryable, orgId: string, id: string): Promise<void> {
  await softDelete(db, { table: 'guests_stations', kind: 'Check-in station', orgId, id });
}

// ---------------------------------------------------------------- organisation settings and hub

export interface CheckinSettings {
  securityCodeLength: number;
  sweepGraceMinutes: number;
  medicalVisibleRoles: string[];
  /** Check-in to a service opens this many minutes before it starts. */
  checkinOpensMinutesBefore: number;
  /** ... and closes this many minutes after it ends (checking out is never closed). */
  checkinClosesMinutesAfter: number;
}

/** The check-in window when an organisation has not set its own: from an hour before a service until half an hour after it ends. */
export const DEFAULT_CHECKIN_WINDOW = { opensMinutesBefore: 60, closesMinutesAfter: 30 } as const;

export interface HubSettings {
  title: string | null;
  stationId: string | null;
  welcomeMessage: string | null;
  allowNewFamilies: boolean;
  lookup: 'phone' | 'name' | 'phone_or_name';
  printParentTag: boolean;
}

const DEFAULT_HUB: HubSettings = { title: null, stationId: null, welcomeMessage: null, allowNewFamilies: false, lookup: 'phone_or_name', printParentTag: true };

/** The settings' columns this part reads (the defaults stand in for a missing row). */
type SettingsRow = Pick<RowOf<InstanceType<typeof GuestsCheckinSettings>>, 'security_code_length' | 'sweep_grace_minutes' | 'medical_visible_roles' | 'hub'
  | 'checkin_opens_minutes_before' | 'checkin_closes_minutes_after'>;

async function settingsRow(db: Queryable, orgId: string): Promise<SettingsRow> {
  const row = await queryOne<SettingsRow>(db, 'SELECT * FROM guests_checkin_settings WHERE org_id = $1', [orgId]);
  return row ?? {
    security_code_length: 4, sweep_grace_minutes: 30, medical_visible_roles: ['owner', 'admin', 'staff'], hub: {},
    checkin_opens_minutes_before: DEFAULT_CHECKIN_WINDOW.opensMinutesBefore, checkin_closes_minutes_after: DEFAULT_CHECKIN_WINDOW.closesMinutesAfter,
  };
}

export async function getCheckinSettings(db: Queryable, orgId: string): Promise<CheckinSettings> {
  const row = await settingsRow(db, orgId);
  return {
    securityCodeLength: row.security_code_length, sweepGraceMinutes: row.sweep_grace_minutes, medicalVisibleRoles: row.medical_visible_roles,
    checkinOpensMinutesBefore: row.checkin_opens_minutes_before, checkinClosesMinutesAfter: row.checkin_closes_minutes_after,
  };
}

async function ensureSettingsRow(db: Queryable, orgId: string): Promise<void> {
  await db.query('INSERT INTO guests_checkin_settings (org_id) VALUES ($1) ON CONFLICT (org_id) DO NOTHING', [orgId]);
}

export async function updateCheckinSettings(db: Queryable, orgId: string, patch: Partial<CheckinSettings>): Promise<CheckinSettings> {
  await ensureSettingsRow(db, orgId);
  await db.query(`UPDATE guests_checkin_settings SET security_code_length = COALESCE($2, security_code_length),
    sweep_grace_minutes = COALESCE($3, sweep_grace_minutes), medical_visible_roles = COALESCE($4, medical_visible_roles),
    checkin_opens_minutes_before = COALESCE($5, checkin_opens_minutes_before), checkin_closes_minutes_after = COALESCE($6, checkin_closes_minutes_after), updated_at = now()
    WHERE org_id = $1`, [orgId, patch.securityCodeLength ?? null, patch.sweepGraceMinutes ?? null, patch.medicalVisibleRoles ?? null,
    patch.checkinOpensMinutesBefore ?? null, patch.checkinClosesMinutesAfter ?? null]);
  return getCheckinSettings(db, orgId);
}

export async function getHub(db: Queryable, orgId: string): Promise<HubSettings> {
  return { ...DEFAULT_HUB, ...(await settingsRow(db, orgId)).hub };
}

/** The hub's station must be a self-service one: the kiosk is where families check themselves in. */
export async function updateHub(db: Queryable, orgId: string, patch: Partial<HubSettings>): Promise<HubSettings> {
  if (patch.stationId) {
    const station = await requireStation(db, orgId, patch.stationId);
    if (station.kind !== 'self') {
      throw new StewardError('validation_failed', `Station ${station.name} is a ${station.kind} station; the hub runs at a self-service one`, {
        issues: [{ path: 'stationId', message: 'must be a self station' }], hint: 'Create one with guests_create_check_in_station kind "self".',
      });
    }
  }
  await ensureSettingsRow(db, orgId);
  const hub = { ...(await getHub(db, orgId)), ...Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) };
  await db.query('UPDATE guests_checkin_settings SET hub = $2, updated_at = now() WHERE org_id = $1', [orgId, JSON.stringify(hub)]);
  return hub;
}

// ---------------------------------------------------------------- per-service settings

export interface LabelOptions {
  childLabel: boolean;
  parentTag: boolean;
  copies: number;
  showAllergies: boolean;
}

const DEFAULT_LABELS: LabelOptions = { childLabel: true, parentTag: true, copies: 1, showAllergies: true };

export interface ServiceSettingsView {
  /** Where these settings come from: the instance's own, its series', or the defaults (every location open). */
  source: 'instance' | 'series' | 'default';
  seriesId: string | null;
  instanceId: string | null;
  openLocationIds: string[];
  labelOptions: LabelOptions;
}

type ServiceSettingsRow = Pick<RowOf<InstanceType<typeof GuestsServiceCheckinSettings>>, 'series_id' | 'instance_id' | 'open_location_ids' | 'label_options'>;

const serviceView = (row: ServiceSettingsRow, source: ServiceSettingsView['source']): ServiceSettingsView => ({
  source, seriesId: row.series_id, instanceId: row.instance_id, openLocationIds: row.open_location_ids, labelOptions: { ...DEFAULT_LABELS, ...row.label_options },
});

/**
 * The settings a series or instance runs with, after checking it is the organisation's own
 * (another organisation's id is not found): an instance's own, else its series', else every location open.
 */
export async function settingsOfService(db: Queryable, orgId: string, target: { seriesId?: string; instanceId?: string }): Promise<ServiceSettingsView> {
  if (target.instanceId) return serviceSettingsFor(db, orgId, { instanceId: target.instanceId, seriesId: await seriesOf(db, orgId, target.instanceId) });
  await getSeries(db, orgId, target.seriesId!);
  return serviceSettingsFor(db, orgId, { seriesId: target.seriesId });
}

/** The settings an instance runs with: its own, else its series', else every location open. */
export async function serviceSettingsFor(db: Queryable, orgId: string, target: { instanceId?: string | null; seriesId?: string | null }): Promise<ServiceSettingsView> {
  const rows = await queryRows<ServiceSettingsRow>(db, `SELECT series_id, instance_id, open_location_ids, label_options FROM guests_service_checkin_settings
    WHERE org_id = $1 AND (instance_id = $2 OR series_id = $3) ORDER BY instance_id NULLS LAST LIMIT 1`, [orgId, target.instanceId ?? null, target.seriesId ?? null]);
  const row = rows[0];
  if (!row) return { source: 'default', seriesId: target.seriesId ?? null, instanceId: target.instanceId ?? null, openLocationIds: [], labelOptions: DEFAULT_LABELS };
  return serviceView(row, row.instance_id ? 'instance' : 'series');
}

async function seriesOf(db: Queryable, orgId: string, instanceId: string): Promise<string> {
  return (await getInstance(db, orgId, instanceId)).seriesId;
}

export async function updateServiceSettings(
  db: Queryable, orgId: string, userId: string,
  input: { seriesId?: string; instanceId?: string; openLocationIds?: string[]; labelOptions?: Partial<LabelOptions> },
): Promise<ServiceSettingsView> {
  for (const locationId of input.openLocationIds ?? []) await requireLocation(db, orgId, locationId);
  // An instance's first settings start from its series' (what it ran with until now), then change what is given.
  const current = await settingsOfService(db, orgId, input);
  const open = input.openLocationIds ?? current.openLocationIds;
  const labels = { ...current.labelOptions, ...input.labelOptions };
  const conflictTarget = input.instanceId ? '(org_id, instance_id) WHERE instance_id IS NOT NULL' : '(org_id, series_id) WHERE series_id IS NOT NULL';
  const row = await queryOne<ServiceSettingsRow>(db, `INSERT INTO guests_service_checkin_settings (id, org_id, series_id, instance_id, open_location_ids, label_options, updated_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT ${conflictTarget} DO UPDATE SET open_location_ids = EXCLUDED.open_location_ids, label_options = EXCLUDED.label_options,
      updated_by_user_id = EXCLUDED.updated_by_user_id, updated_at = now()
    RETURNING series_id, instance_id, open_location_ids, label_options`,
  [randomUUID(), orgId, input.instanceId ? null : input.seriesId, input.instanceId ?? null, open, JSON.stringify(labels), userId]);
  return serviceView(row!, input.instanceId ? 'instance' : 'series');
}

// ---------------------------------------------------------------- child profiles

export interface ChildProfile {
  contactId: string;
  grade: number | null;
  allergies: string | null;
  medicalNotes: string | null;
  authorisedPickupIds: string[];
}

type ProfileRow = Pick<RowOf<InstanceType<typeof GuestsChildProfile>>, 'contact_id' | 'grade' | 'allergies' | 'medical_notes' | 'authorised_pickup_ids'>;

const profileView = (row: ProfileRow): ChildProfile => ({
  contactId: row.contact_id, grade: row.grade, allergies: row.allergies, medicalNotes: row.medical_notes, authorisedPickupIds: row.authorised_pickup_ids,
});

/** Profiles of these contacts (the newest if a merge left two), keyed by contact id. */
export async function childProfiles(db: Queryable, orgId: string, contactIds: readonly string[]): Promise<Map<string, ChildProfile>> {
  const rows = await queryRows<ProfileRow>(db, `SELECT DISTINCT ON (contact_id) contact_id, grade, allergies, medical_notes, authorised_pickup_ids
    FROM guests_child_profiles WHERE org_id = $1 AND contact_id = ANY($2::uuid[]) ORDER BY contact_id, updated_at DESC, id`, [orgId, contactIds]);
  return new Map(rows.map((row) => [row.contact_id, profileView(row)]));
}

export async function getChildProfile(db: Queryable, orgId: string, contactId: string): Promise<ChildProfile> {
  await requireContact(db, orgId, contactId);
  return (await childProfiles(db, orgId, [contactId])).get(contactId)
    ?? { contactId, grade: null, allergies: null, medicalNotes: null, authorisedPickupIds: [] };
}

export async function updateChildProfile(
  db: Queryable, orgId: string, contactId: string, patch: Partial<Omit<ChildProfile, 'contactId'>>,
): Promise<ChildProfile> {
  await requireContact(db, orgId, contactId);
  // Serialise writers of one child's profile: two edits never leave two rows or lose a field.
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`guests_child_profile:${orgId}:${contactId}`]);
  const current = await getChildProfile(db, orgId, contactId);
  for (const pickupId of patch.authorisedPickupIds ?? []) await requireContact(db, orgId, pickupId);
  const next = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) } as ChildProfile;
  const updated = await db.query(`UPDATE guests_child_profiles SET grade = $3, allergies = $4, medical_notes = $5, authorised_pickup_ids = $6, updated_at = now()
    WHERE org_id = $1 AND contact_id = $2`, [orgId, contactId, next.grade, next.allergies, next.medicalNotes, next.authorisedPickupIds]);
  if ((updated.rowCount ?? 0) === 0) {
    await db.query(`INSERT INTO guests_child_profiles (id, org_id, contact_id, grade, allergies, medical_notes, authorised_pickup_ids)
      VALUES ($1, $2, $3, $4, $5, $6, $7)`, [randomUUID(), orgId, contactId, next.grade, next.allergies, next.medicalNotes, next.authorisedPickupIds]);
  }
  return next;
}
