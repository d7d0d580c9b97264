import type { Migration } from '../../../db/migrate';

/**
 * A conflict may be a countable resource's shortage: an occurrence held back because what it needs
 * of a resource (2 projectors) is more than is free then. Nobody else's single occurrence is "the
 * other side" of a shortage (several uses add up to it), so it names the resource, with what the
 * occurrence wanted and what was free when the shortage was found.
 *
 * One open shortage per occurrence and resource, enforced here, so a rerun of the rolling window
 * (or any second look) never opens a duplicate.
 */
export const spacesResourceConflicts: Migration = {
  name: '2026.12.01T17.00.00.spaces-resource-conflicts',
  up: `
ALTER TABLE spaces_conflicts
  ADD COLUMN resource_id uuid REFERENCES spaces_resources(id) ON DELETE CASCADE,
  ADD COLUMN wanted integer CHECK (wanted BETWEEN 1 AND 100000),
  ADD COLUMN available integer CHECK (available BETWEEN 0 AND 100000);
ALTER TABLE spaces_conflicts DROP CONSTRAINT spaces_conflicts_against;
ALTER TABLE spaces_conflicts ADD CONSTRAINT spaces_conflicts_against CHECK (num_nonnulls(other_occurrence_id, blockout_id, resource_id) = 1);
ALTER TABLE spaces_conflicts ADD CONSTRAINT spaces_conflicts_shortage CHECK (num_nonnulls(resource_id, wanted, available) IN (0, 3));
CREATE UNIQUE INDEX spaces_conflicts_open_shortage ON spaces_conflicts (occurrence_id, resource_id) WHERE status = 'open' AND resource_id IS NOT NULL;
CREATE INDEX spaces_conflicts_resource ON spaces_conflicts (resource_id) WHERE status = 'open' AND resource_id IS NOT NULL;
`,
  down: `
DELETE FROM spaces_conflicts WHERE resource_id IS NOT NULL;
DROP INDEX spaces_conflicts_resource;
DROP INDEX spaces_conflicts_open_shortage;
ALTER TABLE spaces_conflicts DROP CONSTRAINT spaces_conflicts_shortage;
ALTER TABLE spaces_conflicts DROP CONSTRAINT spaces_conflicts_against;
ALTER TABLE spaces_conflicts ADD CONSTRAINT spaces_conflicts_against CHECK (num_nonnulls(other_occurrence_id, blockout_id) = 1);
ALTER TABLE spaces_conflicts DROP COLUMN available, DROP COLUMN wanted, DROP COLUMN resource_id;
`,
};
