import { z } from 'zod';
import { StewardError } from '../../../../core/errors';
import { queryOne, type Queryable } from '../../../../db/pool';
import type { RowOf } from '../../../kit';
import { CONFIDENTIALITY_LEVELS, NOTE_PRIVACY } from '../../schemas';
import type { PastoralSettings as PastoralSettingsModel } from './models';

/**
 * An organisation's pastoral settings. Until someone initialises or sets them there is no row,
 * and every reader gets the defaults below, so other parts can rely on getPastoralSettings alone.
 */

export const DEFAULT_WELFARE_INTERVAL_DAYS = 180;

/** The grief touchpoints a bereavement opens, counted in days from the death (or when it was recorded). */
export const DEFAULT_GRIEF_PLAN: readonly GriefTouchpoint[] = [
  { label: 'One week', offsetDays: 7 },
  { label: 'One month', offsetDays: 30 },
  { label: 'Three months', offsetDays: 91 },
  { label: 'Six months', offsetDays: 182 },
  { label: 'First anniversary', offsetDays: 365 },
];

export interface GriefTouchpoint {
  label: string;
  offsetDays: number;
}

const TIME_OF_DAY = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

export const griefTouchpointSchema = z.object({
  label: z.string().trim().min(1).max(80).describe('What the touchpoint is called, e.g. "First anniversary"'),
  offsetDays: z.number().int().min(0).max(3650).describe('Days after the bereavement when it comes due'),
}).strict();

export const quietHoursSchema = z.object({
  start: z.string().max(5).regex(TIME_OF_DAY).describe('HH:MM (24-hour, UTC) when quiet hours begin'),
  end: z.string().max(5).regex(TIME_OF_DAY).describe('HH:MM when they end; may be earlier than start (overnight)'),
}).strict();

export const pastoralSettingsSchema = z.object({
  initialized: z.boolean().describe('false while the organisation still runs on the defaults (nothing stored yet)'),
  welfareIntervalDays: z.number().int(),
  defaultPrivacy: z.enum(NOTE_PRIVACY),
  defaultConfidentialityLevel: z.enum(CONFIDENTIALITY_LEVELS),
  griefPlan: z.array(griefTouchpointSchema),
  quietHours: quietHoursSchema.nullable(),
  updatedAt: z.string().nullable(),
}).strict();

export type PastoralSettings = z.infer<typeof pastoralSettingsSchema>;

export const pastoralSettingsInput = {
  welfareIntervalDays: z.number().int().min(1).max(3650).describe('Days without pastoral contact after which someone is due a welfare check (default 180)'),
  defaultPrivacy: z.enum(NOTE_PRIVACY).describe('Privacy given to new pastoral records (visits, life events, prayer requests) when none is chosen'),
  defaultConfidentialityLevel: z.enum(CONFIDENTIALITY_LEVELS).describe('Confidentiality given to new pastoral records when none is chosen'),
  griefPlan: z.array(griefTouchpointSchema).min(1).max(20).describe('Touchpoints a bereavement opens, each with days after the loss'),
  quietHours: quietHoursSchema.nullable().describe('Hours (HH:MM, UTC) the organisation wants no messages sent, for scheduling tools to respect; pastoral messages here leave only when a person approves them. null for none'),
};

export type PastoralSettingsChanges = Partial<{
  welfareIntervalDays: number;
  defaultPrivacy: PastoralSettings['defaultPrivacy'];
  defaultConfidentialityLevel: PastoralSettings['defaultConfidentialityLevel'];
  griefPlan: GriefTouchpoint[];
  quietHours: { start: string; end: string } | null;
}>;

/** The settings as `SELECT *` reads them, typed by their model. */
type SettingsRow = RowOf<PastoralSettingsModel>;

export function defaultPastoralSettings(): PastoralSettings {
  return {
    initialized: false, welfareIntervalDays: DEFAULT_WELFARE_INTERVAL_DAYS, defaultPrivacy: 'team', defaultConfidentialityLevel: 'green',
    griefPlan: DEFAULT_GRIEF_PLAN.map((touchpoint) => ({ ...touchpoint })), quietHours: null, updatedAt: null,
  };
}

function viewOf(row: SettingsRow): PastoralSettings {
  return {
    initialized: true, welfareIntervalDays: row.welfare_interval_days, defaultPrivacy: row.default_privacy,
    defaultConfidentialityLevel: row.default_confidentiality_level, griefPlan: row.grief_plan,
    quietHours: row.quiet_hours_start && row.quiet_hours_end ? { start: row.quiet_hours_start, end: row.quiet_hours_end } : null,
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The organisation's pastoral settings, or the defaults when none are stored. Safe to call from any part. */
export async function getPastoralSettings(db: Queryable, orgId: string): Promise<PastoralSettings> {
  const row = await queryOne<SettingsRow>(db, 'SELECT * FROM pastoral_settings WHERE org_id = $1', [orgId]);
  return row ? viewOf(row) : defaultPastoralSettings();
}

/** A plan in offset order; two touchpoints on the same day would be one visit counted twice. */
function checkedGriefPlan(plan: GriefTouchpoint[]): GriefTouchpoint[] {
  const sorted = [...plan].sort((a, b) => a.offsetDays - b.offsetDays);
  for (let i = 1; i < sorted.length; i += 1) {
    if (sorted[i].offsetDays === sorted[i - 1].offsetDays) {
      throw new StewardError('validation_failed', `Two grief touchpoints fall on day ${sorted[i].offsetDays}`, {
        issues: [{ path: 'griefPlan', message: 'offsetDays must differ' }], hint: 'Give each touchpoint its own number of days.',
      });
    }
  }
  return sorted;
}

function checkedQuietHours(quietHours: { start: string; end: string } | null | undefined): void {
  if (quietHours && quietHours.start === quietHours.end) {
    throw new StewardError('validation_failed', 'Quiet hours must start and end at different times', {
      issues: [{ path: 'quietHours', message: 'start equals end' }], hint: 'Pass null for no quiet hours.',
    });
  }
}

async function writeSettings(db: Queryable, orgId: string, settings: PastoralSettings): Promise<void> {
  await db.query(`
    INSERT INTO pastoral_settings (org_id, welfare_interval_days, default_privacy, default_confidentiality_level, grief_plan, quiet_hours_start, quiet_hours_end)
    VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)
    ON CONFLICT (org_id) DO UPDATE SET welfare_interval_days = EXCLUDED.welfare_interval_days, default_privacy = EXCLUDED.default_privacy,
      default_confidentiality_level = EXCLUDED.default_confidentiality_level, grief_plan = EXCLUDED.grief_plan,
      quiet_hours_start = EXCLUDED.quiet_hours_start, quiet_hours_end = EXCLUDED.quiet_hours_end, updated_at = now()`,
  [orgId, settings.welfareIntervalDays, settings.defaultPrivacy, settings.defaultConfidentialityLevel, JSON.stringify(settings.griefPlan),
    settings.quietHours?.start ?? null, settings.quietHours?.end ?? null]);
}

/** Serialises writers of one organisation's settings, so two changes at once both land (neither overwrites the other's field). */
async function lockSettings(db: Queryable, orgId: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`pastoral-settings:${orgId}`]);
}

function applied(base: PastoralSettings, changes: PastoralSettingsChanges): { next: PastoralSettings; changed: string[] } {
  const next = { ...base };
  const changed: string[] = [];
  if (changes.welfareIntervalDays !== undefined) { next.welfareIntervalDays = changes.welfareIntervalDays; changed.push('welfareIntervalDays'); }
  if (changes.defaultPrivacy !== undefined) { next.defaultPrivacy = changes.defaultPrivacy; changed.push('defaultPrivacy'); }
  if (changes.defaultConfidentialityLevel !== undefined) { next.defaultConfidentialityLevel = changes.defaultConfidentialityLevel; changed.push('defaultConfidentialityLevel'); }
  if (changes.griefPlan !== undefined) { next.griefPlan = checkedGriefPlan(changes.griefPlan); changed.push('griefPlan'); }
  if (changes.quietHours !== undefined) { checkedQuietHours(changes.quietHours); next.quietHours = changes.quietHours; changed.push('quietHours'); }
  return { next, changed };
}

/** Stores the settings once (defaults, with any values given); a second call changes nothing and says so. */
export async function initializePastoralSettings(db: Queryable, orgId: string, values: PastoralSettingsChanges): Promise<{ settings: PastoralSettings; created: boolean }> {
  await lockSettings(db, orgId);
  const current = await getPastoralSettings(db, orgId);
  if (current.initialized) return { settings: current, created: false };
  await writeSettings(db, orgId, applied(current, values).next);
  return { settings: await getPastoralSettings(db, orgId), created: true };
}

/** Changes the fields given (storing the defaults for the rest the first time). */
export async function setPastoralSettings(db: Queryable, orgId: string, changes: PastoralSettingsChanges): Promise<{ settings: PastoralSettings; changed: string[] }> {
  await lockSettings(db, orgId);
  const { next, changed } = applied(await getPastoralSettings(db, orgId), changes);
  if (changed.length === 0) {
    throw new StewardError('validation_failed', 'Nothing to change: give at least one setting', {
      hint: 'Settings: welfareIntervalDays, defaultPrivacy, defaultConfidentialityLevel, griefPlan, quietHours.',
    });
  }
  await writeSettings(db, orgId, next);
  return { settings: await getPastoralSettings(db, orgId), changed };
}
