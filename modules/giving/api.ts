/**
 * The giving module's public surface: what other modules may call. Another module imports only this
 * file and names 'giving' in its `uses`.
 */
export { checkOutsideGift, recordOutsideGift, type OutsideGift, type OutsideGiftOffer } from './outside-gifts';
export { donationsRecordedSince } from './automation-sources';
