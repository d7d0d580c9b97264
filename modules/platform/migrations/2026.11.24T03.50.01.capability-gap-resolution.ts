import type { Migration } from '../../../db/migrate';

/** A capability gap stays open until an owner or admin says how it was dealt with; the overview counts open ones. */
export const capabilityGapResolution: Migration = {
  name: '2026.11.24T03.50.01.capability-gap-resolution',
  up: `
ALTER TABLE capability_gaps
  ADD COLUMN resolved_at timestamptz,
  ADD COLUMN resolved_by_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  ADD COLUMN resolution text,
  ADD CONSTRAINT capability_gaps_resolution_check CHECK ((resolved_at IS NULL) = (resolution IS NULL));
CREATE INDEX capability_gaps_open_idx ON capability_gaps (org_id, created_at DESC, id DESC) WHERE resolved_at IS NULL;
`,
  down: `
DROP INDEX capability_gaps_open_idx;
ALTER TABLE capability_gaps DROP CONSTRAINT capability_gaps_resolution_check, DROP COLUMN resolution, DROP COLUMN resolved_by_user_id, DROP COLUMN resolved_at;
`,
};
