import type { Queryable } from '../../db/pool';
import { contributionsTo } from '../registry';

/**
 * Where the community module needs other modules to act in its direction, it declares an extension
 * point here and they fill it from their definitions (`contributes`): community imports no module
 * that would have to import it back.
 */

/** A source of people for the follow-up radar that another module keeps (small groups: members missing meetings). */
export interface RadarContribution {
  /** Named in the radar's `sources` (e.g. 'small_groups'). */
  source: string;
  /** The reason its items carry; one of the radar's reasons (RADAR_REASONS). */
  reason: 'missing_group_meetings';
  /** Its people now, at most `limit`; a restricted (confidential) record only when `canSeeRestricted`. Each detail is a sentence with the figures, never private content. */
  items(db: Queryable, orgId: string, options: { canSeeRestricted: boolean; limit: number }): Promise<Array<{ contactId: string; contactName: string; detail: string; since: string | null }>>;
}

declare module '../module' {
  interface ModuleContributions {
    communityRadarSources?: readonly RadarContribution[];
  }
}

export function radarContributions(): RadarContribution[] {
  return contributionsTo('communityRadarSources').flat();
}
