/** The runsheet module's workflows: bundled through its definition's `workflows`. */
export { runsheetMessageWorkflow, runsheetSubstitutionWorkflow } from './substitution';
export { followUps } from './follow-ups';
