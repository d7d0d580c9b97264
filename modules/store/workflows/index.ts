/** Store's workflows, bundled through its definition's `workflows`. */
export { storeCheckoutWorkflow } from './checkouts';
export { followUps } from './follow-ups';
