/** Media Hub's workflows, bundled through its definition's `workflows`. */
export { mediahubProcessItemWorkflow, mediahubTranscribeEpisodeWorkflow } from './processing';
export { followUps } from './follow-ups';
