/** Every scope a credential can hold (spec 5.4). Tools name exactly one of these. */
export const ALL_SCOPES = [
  'platform:read', 'platform:write',
  'people:read', 'people:write',
  'community:read', 'community:write',
  'giving:read', 'giving:write',
  'grow:read', 'grow:write',
  'spaces:read', 'spaces:write',
  'channels:read', 'channels:send',
  'ticketing:read', 'ticketing:write', 'ticketing:refund',
  'mediahub:read', 'mediahub:write',
  'live:read', 'live:write',
  'guests:read', 'guests:write',
  'runsheet:read', 'runsheet:write',
  'billing:read', 'billing:write',
  'store:read', 'store:write',
  'templates:read', 'templates:write',
  'groups:read', 'groups:write',
  'attendance:read', 'attendance:write',
  'schedule:read', 'schedule:write',
  'people:safeguarding',
  'audit:read', 'audit:export',
] as const;

/**
 * The operator's scope (the people who host Steward for many organisations): never in ALL_SCOPES,
 * so no organisation's role, key, OAuth consent or dashboard session can hold it. Only a key the
 * admin CLI marks `operator`, held by a platform admin, carries it (kernel/operators.ts).
 */
export const OPERATOR_SCOPE = 'platform:admin' as const;

export type Scope = (typeof ALL_SCOPES)[number] | typeof OPERATOR_SCOPE;

const SCOPE_SET: ReadonlySet<string> = new Set(ALL_SCOPES);

export function isScope(value: string): value is Scope {
  return SCOPE_SET.has(value);
}

/** Splits a comma- or space-separated list and reports names that are not scopes. */
export function parseScopeList(text: string): { scopes: Scope[]; unknown: string[] } {
  const names = text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  for (const name of names) {
    if (isScope(name)) {
      if (!scopes.includes(name)) scopes.push(name);
    } else unknown.push(name);
  }
  return { scopes, unknown };
}

/** The scope that lets a caller see private and confidential pastoral notes. */
export const SAFEGUARDING_SCOPE: Scope = 'people:safeguarding';
