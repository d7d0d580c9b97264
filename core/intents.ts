import { StewardError } from './errors';
import { ALL_SCOPES, type Scope } from './scopes';

/**
 * Power over the organisation itself, held apart from scopes: every intent carries platform:write
 * (spec 5.3), so scopes alone would let a token consented for "people" invite an admin or list the
 * API keys. `organisation` is the team, roles, API keys, agents' autonomy and the organisation's
 * settings; `billing` is the plan and payment. A tool or route that needs a power is visible and
 * callable only to credentials whose intent carries it (spec 4.5: tools depend on intent and scopes).
 */
export const POWERS = ['organisation', 'billing'] as const;
export type Power = (typeof POWERS)[number];

export interface Intent {
  id: string;
  purpose: string;
  scopes: readonly Scope[];
  /** The powers a token of this intent holds besides its scopes; most hold none. */
  powers: readonly Power[];
  /** What a person consenting should know this intent lets the assistant do, in plain words. */
  consent: string;
}

/** OAuth intent bundles (spec 5.3): what an assistant asks to do, mapped to scopes. */
export const INTENTS: readonly Intent[] = [
  { id: 'sms', purpose: 'Send SMS, read contacts, credits, templates', scopes: ['channels:read', 'channels:send', 'people:read', 'templates:read', 'platform:read', 'platform:write'], powers: [], consent: 'Send text messages to your contacts and read them, your credits and templates.' },
  { id: 'email', purpose: 'Campaigns, templates, audience, send', scopes: ['channels:read', 'channels:send', 'grow:read', 'grow:write', 'people:read', 'templates:read', 'templates:write', 'platform:read', 'platform:write'], powers: [], consent: 'Create and send email campaigns and read your contacts and templates.' },
  { id: 'whatsapp', purpose: 'WhatsApp send, templates, lookup', scopes: ['channels:read', 'channels:send', 'people:read', 'templates:read', 'templates:write', 'platform:read', 'platform:write'], powers: [], consent: 'Send WhatsApp messages, manage WhatsApp templates and read your contacts.' },
  { id: 'spaces', purpose: 'Rooms, bookings, incidents, facilities', scopes: ['spaces:read', 'spaces:write', 'platform:read', 'platform:write'], powers: [], consent: 'Manage rooms, bookings, incidents and facilities.' },
  { id: 'pastoral', purpose: 'Notes, care timeline, follow-ups, community', scopes: ['people:read', 'people:write', 'community:read', 'community:write', 'platform:read', 'platform:write', 'people:safeguarding'], powers: [], consent: 'Read and write pastoral notes, the care timeline and follow-ups, including restricted safeguarding notes.' },
  { id: 'giving', purpose: 'Funds, donations, givers, summaries', scopes: ['giving:read', 'giving:write', 'people:read', 'platform:read', 'platform:write'], powers: [], consent: 'Record and read gifts, funds and givers.' },
  { id: 'team', purpose: 'Invite team members, roles, org access', scopes: ['people:read', 'platform:read', 'platform:write'], powers: ['organisation'], consent: 'Invite people to your team, change their roles, remove them, see API keys, set how much agents may do alone, and change the organisation settings. Making someone an owner or admin, creating an API key or letting an agent act alone still waits for a person to approve it.' },
  { id: 'broadcast', purpose: 'Runsheet, live streaming, media hub; no CRM or pastoral data', scopes: ['runsheet:read', 'runsheet:write', 'live:read', 'live:write', 'mediahub:read', 'mediahub:write', 'platform:read', 'platform:write'], powers: [], consent: 'Manage service runsheets, live streams and the media hub; no contacts or pastoral data.' },
  { id: 'runsheet', purpose: 'Service plans, teams, positions, volunteers', scopes: ['runsheet:read', 'runsheet:write', 'platform:read', 'platform:write'], powers: [], consent: 'Manage service plans, teams, positions and volunteers.' },
  { id: 'ticketing', purpose: 'Events, sales, waitlists, refunds, publish flow', scopes: ['ticketing:read', 'ticketing:write', 'ticketing:refund', 'platform:read', 'platform:write'], powers: [], consent: 'Manage events, sales, waitlists and refunds.' },
  { id: 'people', purpose: 'Contacts, family links, households, custom fields, Welcome Desk, tags, segments', scopes: ['people:read', 'people:write', 'platform:read', 'platform:write'], powers: [], consent: 'Read and change your contacts, families, households, tags and segments. It cannot change who is on your team, their access, API keys, agents or settings.' },
  { id: 'mediahub', purpose: 'Media library, episodes, publishing', scopes: ['mediahub:read', 'mediahub:write', 'platform:read', 'platform:write'], powers: [], consent: 'Manage the media library, episodes and publishing.' },
  { id: 'store', purpose: 'Creator storefronts, connected payouts, org shop, marketplace (not giving)', scopes: ['store:read', 'store:write', 'mediahub:read', 'mediahub:write', 'people:read', 'platform:read', 'platform:write'], powers: [], consent: 'Manage storefronts, products, orders and payouts.' },
  { id: 'guests', purpose: 'Guest pipeline, follow-ups, check-in (not Welcome Desk)', scopes: ['guests:read', 'guests:write', 'people:read', 'platform:read', 'platform:write'], powers: [], consent: 'Manage the guest pipeline, follow-ups and check-in.' },
  { id: 'billing', purpose: 'Plan status, checkout links, customer portal', scopes: ['billing:read', 'billing:write', 'platform:read', 'platform:write'], powers: ['billing'], consent: 'See your plan and open checkout and billing portal links.' },
  { id: 'platform', purpose: 'Every module', scopes: ALL_SCOPES, powers: ['organisation', 'billing'], consent: 'Everything in every module, including your team, API keys, agents, settings and billing. Making someone an owner or admin, creating an API key or letting an agent act alone still waits for a person to approve it.' },
];

export function findIntent(id: string): Intent | undefined {
  return INTENTS.find((intent) => intent.id === id);
}

/**
 * Whether a credential holds a power. API keys, dashboard sessions and agents' runs carry no
 * intent: their scopes were chosen by a person for them, so scopes alone decide.
 */
export function holdsPower(access: { intent: string | null }, power: Power | undefined): boolean {
  if (!power || access.intent === null) return true;
  return findIntent(access.intent)?.powers.includes(power) ?? false;
}

/** The intents that carry a power, for refusals that say which consent would do. */
export function intentsWithPower(power: Power): string[] {
  return INTENTS.filter((intent) => intent.powers.includes(power)).map((intent) => intent.id);
}

/**
 * The refusal for a tool or route whose power the credential's intent does not carry. It is an
 * insufficient_scope (403) like a missing scope, with the intents that would do in its details.
 */
export function powerNotHeld(what: string, intent: string | null, power: Power): StewardError {
  const intents = intentsWithPower(power);
  return new StewardError('insufficient_scope', `${what} changes or shows who holds power over the organisation; a credential consented for the ${intent} intent cannot use it`, {
    details: { requiredIntent: intents, intent },
    hint: `Only the ${intents.join(' or ')} intent (or an API key) reaches it; a person signs in again choosing that intent.`,
  });
}
