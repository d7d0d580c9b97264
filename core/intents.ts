import { ALL_SCOPES, type Scope } from './scopes';

export interface Intent {
  id: string;
  purpose: string;
  scopes: readonly Scope[];
}

/** OAuth intent bundles (spec 5.3): what an assistant asks to do, mapped to scopes. */
export const INTENTS: readonly Intent[] = [
  { id: 'sms', purpose: 'Send SMS, read contacts, credits, templates', scopes: ['channels:read', 'channels:send', 'people:read', 'templates:read', 'platform:read', 'platform:write'] },
  { id: 'email', purpose: 'Campaigns, templates, audience, send', scopes: ['channels:read', 'channels:send', 'grow:read', 'grow:write', 'people:read', 'templates:read', 'templates:write', 'platform:read', 'platform:write'] },
  { id: 'whatsapp', purpose: 'WhatsApp send, templates, lookup', scopes: ['channels:read', 'channels:send', 'people:read', 'templates:read', 'templates:write', 'platform:read', 'platform:write'] },
  { id: 'spaces', purpose: 'Rooms, bookings, incidents, facilities', scopes: ['spaces:read', 'spaces:write', 'platform:read', 'platform:write'] },
  { id: 'pastoral', purpose: 'Notes, care timeline, follow-ups, community', scopes: ['people:read', 'people:write', 'community:read', 'community:write', 'platform:read', 'platform:write', 'people:safeguarding'] },
  { id: 'giving', purpose: 'Funds, donations, givers, summaries', scopes: ['giving:read', 'giving:write', 'people:read', 'platform:read', 'platform:write'] },
  { id: 'team', purpose: 'Invite team members, roles, org access', scopes: ['people:read', 'platform:read', 'platform:write'] },
  { id: 'broadcast', purpose: 'Runsheet, live streaming, media hub; no CRM or pastoral data', scopes: ['runsheet:read', 'runsheet:write', 'live:read', 'live:write', 'mediahub:read', 'mediahub:write', 'platform:read', 'platform:write'] },
  { id: 'runsheet', purpose: 'Service plans, teams, positions, volunteers', scopes: ['runsheet:read', 'runsheet:write', 'platform:read', 'platform:write'] },
  { id: 'ticketing', purpose: 'Events, sales, waitlists, refunds, publish flow', scopes: ['ticketing:read', 'ticketing:write', 'ticketing:refund', 'platform:read', 'platform:write'] },
  { id: 'people', purpose: 'Contacts, family links, households, custom fields, Welcome Desk, tags, segments', scopes: ['people:read', 'people:write', 'platform:read', 'platform:write'] },
  { id: 'mediahub', purpose: 'Media library, episodes, publishing', scopes: ['mediahub:read', 'mediahub:write', 'platform:read', 'platform:write'] },
  { id: 'store', purpose: 'Creator storefronts, connected payouts, org shop, marketplace (not giving)', scopes: ['store:read', 'store:write', 'mediahub:read', 'mediahub:write', 'people:read', 'platform:read', 'platform:write'] },
  { id: 'guests', purpose: 'Guest pipeline, follow-ups, check-in (not Welcome Desk)', scopes: ['guests:read', 'guests:write', 'people:read', 'platform:read', 'platform:write'] },
  { id: 'billing', purpose: 'Plan status, checkout links, customer portal', scopes: ['billing:read', 'billing:write', 'platform:read', 'platform:write'] },
  { id: 'platform', purpose: 'Every module', scopes: ALL_SCOPES },
];

export function findIntent(id: string): Intent | undefined {
  return INTENTS.find((intent) => intent.id === id);
}
