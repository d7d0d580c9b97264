/**
 * The groups module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/groups/), and names 'groups' in its `uses`.
 */
export { membersMissingMeetings } from './health';
export { groupNameOf, requestToJoinFromForm } from './enrolment';
