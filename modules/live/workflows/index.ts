/** Live's workflows, bundled through its definition's `workflows`. */
export { liveStreamWorkflow } from './stream';
export { followUps } from './follow-ups';
export { liveStreamsAheadWorkflow } from './ahead';
