/** The people module's workflows (bundled through its registry entry: `workflows` in ../index.ts). */
export { outreachWorkflow } from './outreach';
export { griefPlanWorkflow } from './grief-plan';
export { safeguardingStatusWorkflow } from './safeguarding-status';
export { contactsBulkOperationWorkflow } from './contacts-bulk-operation';
export { followUps } from './follow-ups';
export { dataQualityJobWorkflow } from './data-quality';
