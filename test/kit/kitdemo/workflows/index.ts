/** The kit demo's workflows: bundled through its definition's `workflows`, with no edit outside this folder. */
export { kitdemoThanksWorkflow } from './thanks';
export { followUps } from './follow-ups';
