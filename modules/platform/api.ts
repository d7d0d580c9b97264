/**
 * The platform module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/platform/), and names 'platform' in its `uses`.
 * The usage ledger, API keys, OAuth and proposals are the kernel's (kernel/), beneath every module.
 */
export { forgetStoredMentions } from './erasure';
export { getOrgSettings } from './orgs';
export { blankOutboxText, hasOutboxMessage, lockOutboxStateOf } from './outbox-state';
export { listTeam } from './settings';
// The OpenAI-compatible AI provider setting the media tools use; other modules' AI tools share it.
export { AI_URL_SETTING, aiSettings, chatJson, cosine, embed } from './media/ai-provider';
export { currentBrandVoice } from './brand/service';
export type { AiSettings } from './media/ai-provider';
// Media Hub keeps its bytes in the same store as the Media Library (presigned uploads, S3 or the embedded store).
export { mediaStorage, newKeySegment, publicOrigin, type MediaStorage } from './media/storage';
// A Media Library file another module links to (runsheet's song files, grow's page images, Media Hub's artwork):
// shown by id, name, type and address; one at a time or many at once.
export { linkedMediaFile, linkedMediaFiles, type LinkedMediaFile } from './media/library';
