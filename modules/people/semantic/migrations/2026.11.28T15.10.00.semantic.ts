import type { Migration } from '../../../../db/migrate';
import { tenantPolicies } from '../../../../db/row-level-security';

const TABLES = ['semantic_segment_previews', 'contact_text_embeddings'];

/**
 * Search that understands meaning. A segment built from words is first previewed: the rules read from
 * the request are kept here, and saving takes exactly those rules by the preview's id. Embeddings of
 * each contact's free text are cached per kind of reader: `open` is built only from what any
 * people:read caller may see (notes that are not restricted, interests), `all` also from restricted
 * notes and is read only for callers holding people:safeguarding. A row is recomputed when the hash
 * of its text or the embedding model changes.
 */
export const semantic: Migration = {
  name: '2026.11.28T15.10.00.semantic',
  up: `
CREATE TABLE semantic_segment_previews (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  request text NOT NULL,
  rules jsonb NOT NULL,
  readings jsonb NOT NULL,
  free_text text,
  match_count integer NOT NULL,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  saved_segment_id uuid REFERENCES segments(id) ON DELETE SET NULL,
  saved_at timestamptz
);
CREATE INDEX semantic_segment_previews_created ON semantic_segment_previews (org_id, created_at DESC);

CREATE TABLE contact_text_embeddings (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  reader text NOT NULL CHECK (reader IN ('open', 'all')),
  model text NOT NULL,
  text_hash text NOT NULL,
  embedding double precision[] NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, contact_id, reader)
);
-- Merging contacts repoints contact_id (contactRefs onMerge 'move'); a cached embedding describes the old text,
-- so instead of moving it the row is dropped and the next search embeds the kept contact afresh.
CREATE FUNCTION contact_text_embedding_merge() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.contact_id <> OLD.contact_id THEN
    DELETE FROM contact_text_embeddings WHERE org_id = OLD.org_id AND contact_id = OLD.contact_id AND reader = OLD.reader;
    RETURN NULL;
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER contact_text_embedding_merge BEFORE UPDATE OF contact_id ON contact_text_embeddings
  FOR EACH ROW EXECUTE FUNCTION contact_text_embedding_merge();
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TRIGGER contact_text_embedding_merge ON contact_text_embeddings;
DROP FUNCTION contact_text_embedding_merge();
DROP TABLE contact_text_embeddings;
DROP TABLE semantic_segment_previews;
`,
};
