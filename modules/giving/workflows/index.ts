/** The giving module's workflows (bundled through its registry entry: `workflows` in ../index.ts). */
export { givingRecurringWorkflow } from './recurring';
export { followUps } from './follow-ups';
