/**
 * The attendance module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/attendance/), and names 'attendance' in its `uses`.
 */
export { droppedRegulars } from './published';
export { recordHeadcount } from './headcounts';
