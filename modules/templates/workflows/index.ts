/** The templates module's workflows (bundled through its registry entry: `workflows` in ../index.ts). */
export { whatsAppTemplateReviewWorkflow } from './whatsapp-review';
export { followUps } from './follow-ups';
