/** The groups module's workflow code: only its follow-ups (bundled through its registry entry: `workflows` in ../index.ts). */
export { followUps } from './follow-ups';
