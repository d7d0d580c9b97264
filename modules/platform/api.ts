/**
 * The platform module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/platform/), and names 'platform' in its `uses`.
 */
export { assertAllowance, lockFeature, recordUsage, usageFor } from './billing';
export { forgetStoredMentions } from './erasure';
export { getOrgSettings } from './orgs';
export { lockOutboxStateOf } from './outbox-state';
export { listProposals } from './proposals';
export { listTeam } from './settings';
