/**
 * The templates module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/templates/), and names 'templates' in its `uses`.
 */
export { activeVersionOf, renderForSend } from './services';
export { smsSegments } from './sms-encoding';
export { applyWhatsAppTemplateStatus } from './whatsapp-review';
export { escapeHtml } from './syntax';
