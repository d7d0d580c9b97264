import type { Migration } from '../../../db/migrate';

/**
 * A stream names the media hub episode it becomes by the episode's id (checked through mediahub's
 * api.ts when it is set), no longer by free text. A free-text value that is not an id is dropped:
 * it could never be followed to an episode. No foreign key: the episode is another module's table.
 */
export const liveEpisodeIdMigration: Migration = {
  name: '2026.11.30T15.00.00.live-episode-id',
  up: `
ALTER TABLE live_streams ADD COLUMN episode_id uuid;
UPDATE live_streams SET episode_id = episode_ref::uuid WHERE episode_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
ALTER TABLE live_streams DROP COLUMN episode_ref;
CREATE INDEX live_streams_episode ON live_streams (org_id, episode_id) WHERE episode_id IS NOT NULL;
`,
  down: `
DROP INDEX live_streams_episode;
ALTER TABLE live_streams ADD COLUMN episode_ref text CHECK (episode_ref IS NULL OR length(episode_ref) BETWEEN 1 AND 200);
UPDATE live_streams SET episode_ref = episode_id::text;
ALTER TABLE live_streams DROP COLUMN episode_id;
`,
};
