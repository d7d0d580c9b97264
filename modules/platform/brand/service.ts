import { StewardError } from '../../../core/errors';
import type { Principal } from '../../../core/principal';
import { STAFF_ROLES } from '../../../core/roles';
import { queryOne, type Queryable } from '../../../db/pool';
import type { RowOf } from '../../kit';
import type { BrandVoiceProfile, PublicProfile } from './models';
import { FALLBACK_TEMPLATE_ID, presetById, type BrandVoice } from './presets';
import type { SyncOutcome, SyncStatus } from './processor';

/**
 * The organisation's saved brand voice and public display name: one row each, keyed by the
 * organisation, so concurrent saves serialise on that row and never make a second.
 */

export interface SavedBrandVoice extends BrandVoice {
  /** The preset it started from; null when written from scratch. */
  templateId: string | null;
  /** Changed since the preset was applied. */
  customised: boolean;
  updatedAt: string;
}

/** Rows as `SELECT *` reads them, typed by the models. */
type VoiceRow = RowOf<BrandVoiceProfile>;

function voiceOf(row: VoiceRow): SavedBrandVoice {
  return {
    templateId: row.template_id, customised: row.customised, name: row.name, tone: row.tone, formality: row.formality, emojiUse: row.emoji_use,
    vocabularyDo: row.vocabulary_do, vocabularyDont: row.vocabulary_dont, sample: row.sample, updatedAt: row.updated_at.toISOString(),
  };
}

export async function savedBrandVoice(db: Queryable, orgId: string): Promise<SavedBrandVoice | null> {
  const row = await queryOne<VoiceRow>(db, 'SELECT * FROM brand_voice_profiles WHERE org_id = $1', [orgId]);
  return row ? voiceOf(row) : null;
}

/** The voice to write in now: the saved one, or the fallback template. For any module drafting messages. */
export async function currentBrandVoice(db: Queryable, orgId: string): Promise<BrandVoice & { source: 'saved' | 'fallback' }> {
  const saved = await savedBrandVoice(db, orgId);
  if (saved) {
    const { templateId: _templateId, customised: _customised, updatedAt: _updatedAt, ...voice } = saved;
    return { ...voice, source: 'saved' };
  }
  const { id: _id, suitedTo: _suitedTo, ...voice } = presetById(FALLBACK_TEMPLATE_ID)!;
  return { ...voice, source: 'fallback' };
}

/** Changing how the organisation sounds is for staff and above, as deciding its messages is. */
export function requireMayShapeVoice(principal: Principal): void {
  if (!STAFF_ROLES.includes(principal.role)) {
    throw new StewardError('forbidden', 'Only staff, admins and owners may change the brand voice', { hint: 'Ask a member of staff to make the change.' });
  }
}

/** Replaces the saved voice with a preset as it is; applying it again is harmless. */
export async function applyBrandVoiceTemplate(db: Queryable, principal: Principal, templateId: string): Promise<SavedBrandVoice> {
  requireMayShapeVoice(principal);
  const preset = presetById(templateId);
  if (!preset) throw new StewardError('validation_failed', `There is no brand voice template ${templateId}`, { issues: [{ path: 'templateId', message: 'not a template id' }] });
  const row = await queryOne<VoiceRow>(db, `
    INSERT INTO brand_voice_profiles (org_id, template_id, customised, name, tone, formality, emoji_use, vocabulary_do, vocabulary_dont, sample, updated_by_user_id)
    VALUES ($1, $2, false, $3, $4, $5, $6, $7, $8, $9, $10)
    ON CONFLICT (org_id) DO UPDATE SET template_id = EXCLUDED.template_id, customised = false, name = EXCLUDED.name, tone = EXCLUDED.tone,
      formality = EXCLUDED.formality, emoji_use = EXCLUDED.emoji_use, vocabulary_do = EXCLUDED.vocabulary_do, vocabulary_dont = EXCLUDED.vocabulary_dont,
      sample = EXCLUDED.sample, updated_by_user_id = EXCLUDED.updated_by_user_id, updated_at = now()
    RETURNING *`,
  [principal.orgId, preset.id, preset.name, preset.tone, preset.formality, preset.emojiUse, preset.vocabularyDo, preset.vocabularyDont, preset.sample, principal.userId]);
  return voiceOf(row!);
}

/**
 * Changes only the fields given; the rest keep the current voice (the saved one, or the fallback
 * template when none is saved yet). One UPDATE under the row's lock, so two concurrent edits of
 * different fields both land.
 */
export async function setBrandVoice(db: Queryable, principal: Principal, changes: Partial<BrandVoice>): Promise<SavedBrandVoice> {
  requireMayShapeVoice(principal);
  const fallback = presetById(FALLBACK_TEMPLATE_ID)!;
  await db.query(`
    INSERT INTO brand_voice_profiles (org_id, template_id, customised, name, tone, formality, emoji_use, vocabulary_do, vocabulary_dont, sample, updated_by_user_id)
    VALUES ($1, $2, false, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (org_id) DO NOTHING`,
  [principal.orgId, fallback.id, fallback.name, fallback.tone, fallback.formality, fallback.emojiUse, fallback.vocabularyDo, fallback.vocabularyDont, fallback.sample, principal.userId]);
  const row = await queryOne<VoiceRow>(db, `
    UPDATE brand_voice_profiles SET customised = true, name = COALESCE($2, name), tone = COALESCE($3, tone), formality = COALESCE($4, formality),
      emoji_use = COALESCE($5, emoji_use), vocabulary_do = COALESCE($6, vocabulary_do), vocabulary_dont = COALESCE($7, vocabulary_dont),
      sample = COALESCE($8, sample), updated_by_user_id = $9, updated_at = now()
    WHERE org_id = $1 RETURNING *`,
  [principal.orgId, changes.name ?? null, changes.tone ?? null, changes.formality ?? null, changes.emojiUse ?? null,
    changes.vocabularyDo ?? null, changes.vocabularyDont ?? null, changes.sample ?? null, principal.userId]);
  return voiceOf(row!);
}

// ---------------------------------------------------------------- public display name

export interface PublicDisplayName {
  tradingName: string;
  statementDescriptor: string | null;
  /** How statements print it: in capitals. */
  statementDescriptorAsPrinted: string | null;
  processorAccountId: string | null;
  sync: { status: SyncStatus; message: string | null; syncedAt: string | null };
  updatedAt: string;
}

type PublicRow = RowOf<PublicProfile>;

function publicOf(row: PublicRow): PublicDisplayName {
  return {
    tradingName: row.trading_name, statementDescriptor: row.statement_descriptor,
    statementDescriptorAsPrinted: row.statement_descriptor?.toUpperCase() ?? null, processorAccountId: row.processor_account_id,
    sync: { status: row.sync_status, message: row.sync_message, syncedAt: row.synced_at?.toISOString() ?? null },
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function publicDisplayName(db: Queryable, orgId: string): Promise<PublicDisplayName | null> {
  const row = await queryOne<PublicRow>(db, 'SELECT * FROM public_profiles WHERE org_id = $1', [orgId]);
  return row ? publicOf(row) : null;
}

/** The public name is what givers see when they pay: owners and admins set it. */
export function requireMaySetPublicName(principal: Principal): void {
  if (principal.role !== 'owner' && principal.role !== 'admin') {
    throw new StewardError('forbidden', 'Only an owner or admin may change the public display name', { hint: 'Ask an owner or admin of the organisation.' });
  }
}

export interface PublicNameToSave {
  tradingName: string;
  statementDescriptor: string | null;
  processorAccountId: string | null;
  outcome: SyncOutcome;
}

/**
 * Saves the name with its sync outcome. A processor account already linked to another
 * organisation is refused (the unique index sees every organisation's rows; row-level security
 * only hides them): call it before syncing, so nothing is sent for an account that is not theirs.
 */
export async function savePublicDisplayName(db: Queryable, principal: Principal, save: PublicNameToSave): Promise<PublicDisplayName> {
  requireMaySetPublicName(principal);
  try {
    return await upsertPublicName(db, principal, save);
  } catch (error) {
    if ((error as { code?: string; constraint?: string }).constraint === 'public_profiles_processor_account_key') {
      throw new StewardError('conflict', 'That payment-processor account is linked to another organisation', {
        issues: [{ path: 'processorAccountId', message: 'already linked elsewhere' }],
        hint: 'Check the connected-account id in the processor\'s dashboard; each organisation has its own.',
      });
    }
    throw error;
  }
}

async function upsertPublicName(db: Queryable, principal: Principal, save: PublicNameToSave): Promise<PublicDisplayName> {
  const row = await queryOne<PublicRow>(db, `
    INSERT INTO public_profiles (org_id, trading_name, statement_descriptor, processor_account_id, sync_status, sync_message, synced_at, updated_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $5 = 'synced' THEN now() END, $7)
    ON CONFLICT (org_id) DO UPDATE SET trading_name = EXCLUDED.trading_name, statement_descriptor = EXCLUDED.statement_descriptor,
      processor_account_id = EXCLUDED.processor_account_id, sync_status = EXCLUDED.sync_status, sync_message = EXCLUDED.sync_message,
      synced_at = COALESCE(EXCLUDED.synced_at, public_profiles.synced_at), updated_by_user_id = EXCLUDED.updated_by_user_id, updated_at = now()
    RETURNING *`,
  [principal.orgId, save.tradingName, save.statementDescriptor, save.processorAccountId, save.outcome.status, save.outcome.message, principal.userId]);
  return publicOf(row!);
}
