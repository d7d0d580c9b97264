/**
 * The channels module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/channels/), and names 'channels' in its `uses`.
 */
export { checkRecipient } from './audience/services';
export { queueMessage } from './delivery/services';
export { audienceSchema, resolveAudience, MAX_AUDIENCE, type Audience } from './broadcasts/audience';
export { outboxDispatch } from './activities/broadcast';
export { dispatchOutcomeOf, settleGivenUp, type DispatchOutcome, type DispatchResult } from './broadcasts/sending';
export { withdrawQueuedMessages } from './delivery/source';
export { startMessageDelivery } from './delivery/start';
export { emailOutcomesOf, type MessageEmailOutcome } from './delivery/email-events';
