/**
 * The mediahub module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/mediahub/), and names 'mediahub' in its `uses`.
 */
export { episodeTranscript } from './transcript-read';
export { episodeExists, episodeForInstance } from './episode-links';
