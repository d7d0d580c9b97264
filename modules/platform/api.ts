/**
 * The platform module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/platform/), and names 'platform' in its `uses`.
 * The usage ledger, API keys, OAuth and proposals are the kernel's (kernel/), beneath every module.
 */
export { forgetStoredMentions } from './erasure';
export { getOrgSettings } from './orgs';
export { blankOutboxText, hasOutboxMessage, lockOutboxStateOf } from './outbox-state';
export { listTeam } from './settings';
export { AI_URL_SETTING, aiSettings, cosine, embed, type AiSettings } from './media/ai-provider';
