import { findIntent, INTENTS, type Intent } from '../../core/intents';
import { scopesAllowedForRole, type Role } from '../../core/roles';
import { ALL_SCOPES, isScope, type Scope } from '../../core/scopes';

/** Each scope in plain words, for the consent page and the intent catalogue. */
export const SCOPE_WORDS: Record<Scope, string> = {
  'platform:read': 'See the organisation overview, usage, agents, proposals and the tool catalogue',
  'platform:write': 'Change organisation settings, team and media library, and decide proposals your role allows',
  'people:read': 'See contacts, families, households, tags, segments and the care timeline',
  'people:write': 'Add and change contacts, notes, family links, tags and groups',
  'community:read': 'See life events, the follow-up radar, care team and prayer requests',
  'community:write': 'Record visits, life events, prayer requests and care team changes',
  'giving:read': 'See funds, donations, givers and giving summaries',
  'giving:write': 'Record donations and pledges and manage funds',
  'grow:read': 'See automations, forms, landing pages and email campaign statistics',
  'grow:write': 'Create and change automations, forms, landing pages and email campaigns',
  'spaces:read': 'See rooms, bookings, availability and incidents',
  'spaces:write': 'Book rooms and manage buildings, incidents and bills',
  'channels:read': 'See messages, credits and sender settings',
  'channels:send': 'Send email, SMS and WhatsApp messages (uses credits)',
  'ticketing:read': 'See events, sales, waitlists and reports',
  'ticketing:write': 'Create and publish events, promotions and waitlists',
  'ticketing:refund': 'Refund ticket purchases',
  'mediahub:read': 'See Media Hub items, episodes and publishing',
  'mediahub:write': 'Upload, change and publish Media Hub items',
  'live:read': 'See streams, polls and viewer statistics',
  'live:write': 'Manage live streams and polls',
  'guests:read': 'See the guest pipeline, follow-ups and check-ins',
  'guests:write': 'Move guests through the pipeline and check people in',
  'runsheet:read': 'See service plans, items, positions and songs',
  'runsheet:write': 'Change service plans, positions and volunteer rotas',
  'billing:read': 'See the plan, invoices and billing status',
  'billing:write': 'Create checkout and customer-portal links',
  'store:read': 'See shops, products and orders',
  'store:write': 'Manage shops, products and orders',
  'templates:read': 'See email and WhatsApp templates',
  'templates:write': 'Create and change email and WhatsApp templates',
  'groups:read': 'See small groups and their members',
  'groups:write': 'Create and change small groups',
  'attendance:read': 'See service check-ins and attendance summaries',
  'attendance:write': 'Record service check-ins',
  'schedule:read': 'See recurring service series and upcoming services',
  'schedule:write': 'Create and change recurring service series',
  'people:safeguarding': 'See private and confidential pastoral notes and safeguarding records',
  'audit:read': 'Read the audit log',
  'audit:export': 'Export the audit log (each export approved by an owner or admin)',
  'platform:admin': 'Operate this Steward installation across every organisation it hosts (platform admins only; never offered for consent)',
};

/** Scope values that name an intent: `intent:<id>`. */
export const INTENT_SCOPE_PREFIX = 'intent:';

/** Requested by many clients to mean "give me a refresh token"; we always do, so it adds nothing. */
const IGNORED_SCOPES = new Set(['offline_access']);

export type ScopeRequest =
  | { ok: true; intent: Intent | null; scopes: Scope[] }
  | { ok: false; error: 'invalid_request' | 'invalid_scope'; message: string };

/**
 * Reads the intent (from `intent=` or a scope `intent:<id>`) and any plain
 * scopes from an authorization request. An intent that is named twice
 * differently, or not at all known, is an error, never a guess.
 */
export function parseScopeRequest(scopeValues: readonly string[], intentParam: string | undefined): ScopeRequest {
  const intentIds = new Set<string>();
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  if (intentParam !== undefined) intentIds.add(intentParam);
  for (const value of scopeValues) {
    if (!value || IGNORED_SCOPES.has(value)) continue;
    if (value.startsWith(INTENT_SCOPE_PREFIX)) intentIds.add(value.slice(INTENT_SCOPE_PREFIX.length));
    else if (isScope(value)) {
      if (!scopes.includes(value)) scopes.push(value);
    } else unknown.push(value);
  }
  if (unknown.length > 0) {
    return { ok: false, error: 'invalid_scope', message: `Unknown scope(s): ${unknown.join(', ')}. Scopes are listed at /api/oauth/intents.` };
  }
  if (intentIds.size > 1) {
    return { ok: false, error: 'invalid_request', message: `Only one intent may be requested; got ${[...intentIds].join(', ')}` };
  }
  const [intentId] = [...intentIds];
  if (intentId === undefined) return { ok: true, intent: null, scopes };
  const intent = findIntent(intentId);
  if (!intent) {
    return { ok: false, error: 'invalid_scope', message: `Unknown intent "${intentId}". Intents: ${INTENTS.map((i) => i.id).join(', ')}` };
  }
  return { ok: true, intent, scopes };
}

export interface ScopeGrant {
  granted: Scope[];
  /** In the intent but refused because of the person's role. */
  withheld: Scope[];
}

/**
 * Granted scopes = the intent's scopes ∩ what the role allows (∩ the plain
 * scopes the client asked for, when it asked for any). The platform intent is
 * every scope, so it grants whatever the role allows.
 */
export function grantScopes(intent: Intent, role: Role, holdsSafeguarding: boolean, requested: readonly Scope[] = []): ScopeGrant {
  const allowed = new Set(scopesAllowedForRole(role, holdsSafeguarding));
  const asked = requested.length > 0 ? new Set(requested) : null;
  const wanted = intent.scopes.filter((scope) => !asked || asked.has(scope));
  return {
    granted: ALL_SCOPES.filter((scope) => wanted.includes(scope) && allowed.has(scope)),
    withheld: ALL_SCOPES.filter((scope) => wanted.includes(scope) && !allowed.has(scope)),
  };
}
