import { z } from 'zod';
import { hasScope, type Principal } from '../../../core/principal';
import { SAFEGUARDING_SCOPE } from '../../../core/scopes';
import { CONFIDENTIALITY_LEVELS, NOTE_PRIVACY } from '../schemas';

/**
 * Every pastoral record (visit, life event, prayer request, grief touchpoint) carries the same two
 * fields as a note, and the same rule decides who sees it: private, or confidentiality amber or red,
 * means restricted, and restricted records leave the database only for a caller holding
 * people:safeguarding. One definition here, as `visibleNoteSql` is for notes; every list, count,
 * export, timeline entry and generated message of a pastoral record goes through it.
 */
export const pastoralPrivacyInput = {
  privacy: z.enum(NOTE_PRIVACY).optional().describe('public, team or private (private: seen only with people:safeguarding). Default from the pastoral settings, else team.'),
  confidentialityLevel: z.enum(CONFIDENTIALITY_LEVELS).optional().describe('green, amber or red; amber and red are seen only with people:safeguarding. Default green.'),
};

export const pastoralPrivacyOutput = {
  privacy: z.enum(NOTE_PRIVACY),
  confidentialityLevel: z.enum(CONFIDENTIALITY_LEVELS),
};

export interface PastoralPrivacy {
  privacy: (typeof NOTE_PRIVACY)[number];
  confidentialityLevel: (typeof CONFIDENTIALITY_LEVELS)[number];
}

export function isRestrictedRecord(record: PastoralPrivacy): boolean {
  return record.privacy === 'private' || record.confidentialityLevel !== 'green';
}

/** SQL condition for rows of a table with `privacy` and `confidentiality_level` columns. */
export function visibleRecordSql(alias: string, canSeeRestricted: boolean): string {
  return canSeeRestricted ? 'true' : `(${alias}.privacy <> 'private' AND ${alias}.confidentiality_level = 'green')`;
}

export function canSeeRestricted(principal: Principal): boolean {
  return hasScope(principal, SAFEGUARDING_SCOPE);
}

/** Column definitions for a migration, so every pastoral table spells the rule the same way. */
export const PRIVACY_COLUMNS_SQL = `privacy text NOT NULL DEFAULT 'team' CHECK (privacy IN ('public', 'team', 'private')),
  confidentiality_level text NOT NULL DEFAULT 'green' CHECK (confidentiality_level IN ('green', 'amber', 'red'))`;
