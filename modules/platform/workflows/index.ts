/** The platform module's workflow code (bundled through its registry entry: `workflows` in ../index.ts): follow-ups only, so far. */
export { followUps } from './follow-ups';
