import type { Queryable } from '../../db/pool';
import { contributionsTo } from '../registry';

/**
 * Where the runsheet module needs modules above it (or built after it) to answer for a service: the
 * Sunday-readiness check asks every contributor for its findings about the plan. Spaces fills `rooms`
 * (rooms booked with setup time and no open conflict); until a module does, the check says plainly that
 * rooms were not checked.
 */

/** The plan a readiness contributor is asked about. */
export interface ReadinessPlan {
  planId: string;
  /** The schedule instance the plan is for, when it is linked to one. */
  instanceId: string | null;
  date: string;
  timeZone: string;
  /** Every time of the plan (service, rehearsal, other), UTC ISO. */
  times: Array<{ kind: 'service' | 'rehearsal' | 'other'; startsAt: string; endsAt: string }>;
}

/** One thing a contributor found: ranked with the others by severity, with the tool call that fixes it. */
export interface ReadinessFinding {
  severity: 'blocker' | 'warning' | 'info';
  area: string;
  title: string;
  detail: string;
  fix: { tool: string; args: Record<string, unknown>; approvalGated?: boolean } | null;
}

/** A module's part of the readiness check (spaces: `area: 'rooms'`). */
export interface ReadinessContributor {
  area: string;
  /** Findings for the plan, read in the caller's transaction; an empty list means all is well in its area. */
  check(db: Queryable, orgId: string, plan: ReadinessPlan): Promise<readonly ReadinessFinding[]>;
}

declare module '../module' {
  interface ModuleContributions {
    runsheetReadiness?: readonly ReadinessContributor[];
  }
}

export function readinessContributors(): ReadinessContributor[] {
  return contributionsTo('runsheetReadiness').flat();
}
