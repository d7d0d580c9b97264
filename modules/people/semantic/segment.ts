import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, type Queryable } from '../../../db/pool';
import { createSegmentFromTemplate, previewRules, requireSegment } from '../segments';
import { ruleSetSchema, type RuleSet } from '../segment-rules';
import { interpretRequest, type Reading } from './interpret';

/**
 * A segment from words, in two steps. Preview: the request is read into rules (each with the words it
 * came from and its meaning), counted and sampled by Postgres, and kept under a preview id. Save: the
 * segment is made from exactly the previewed rules, named by the caller; nothing the caller says at
 * save time changes them. Words not read as a field are shown as left out: a segment is rules over
 * fields, refreshed as people change, so free text cannot be part of it.
 */
export const PREVIEW_LIFETIME_HOURS = 24;
const SAMPLE = 10;

export async function previewSemanticSegment(db: Queryable, orgId: string, actor: string | null, request: string) {
  const interpretation = interpretRequest(request);
  if (!interpretation.rules) {
    throw new StewardError('validation_failed', 'No field rules could be read from the request, so there is nothing a segment could hold', {
      issues: [{ path: 'request', message: 'say who belongs: a membership stage, an age, a household, a place, a season they first came, a tag or group' }],
      hint: interpretation.freeText ? 'people_semantic_search_contacts searches notes and interests for words like these.' : 'people_list_segment_fields lists what can be said.',
    });
  }
  const preview = await previewRules(db, orgId, interpretation.rules, SAMPLE);
  const id = randomUUID();
  await db.query(`INSERT INTO semantic_segment_previews (id, org_id, request, rules, readings, free_text, match_count, created_by, expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(hours => $9))`,
  [id, orgId, request, JSON.stringify(interpretation.rules), JSON.stringify(interpretation.readings), interpretation.freeText, preview.count, actor, PREVIEW_LIFETIME_HOURS]);
  return {
    stage: 'preview' as const, previewId: id, request, rules: interpretation.rules, readings: interpretation.readings, leftOut: interpretation.freeText,
    matchCount: preview.count, sample: preview.sample, segment: null,
    confirm: `Check each reading. To save exactly these rules, call again with previewId ${id} and a name (within ${PREVIEW_LIFETIME_HOURS} hours).`,
  };
}

export async function savePreviewedSegment(db: Queryable, orgId: string, input: { previewId: string; name: string; description?: string }) {
  const row = await queryOne<{ request: string; rules: RuleSet; readings: Reading[]; free_text: string | null; match_count: number; expired: boolean; saved_segment_id: string | null }>(db, `
    SELECT request, rules, readings, free_text, match_count, expires_at <= now() AS expired, saved_segment_id
    FROM semantic_segment_previews WHERE org_id = $1 AND id = $2 FOR UPDATE`, [orgId, input.previewId]);
  if (!row) throw new StewardError('not_found', `Segment preview ${input.previewId} was not found`, { hint: 'Call people_build_semantic_segment with request to preview first.' });
  const rules = ruleSetSchema.parse(row.rules);
  const answer = (segment: Awaited<ReturnType<typeof requireSegment>>, alreadySaved: boolean) => ({
    stage: 'saved' as const, previewId: input.previewId, request: row.request, rules, readings: row.readings, leftOut: row.free_text,
    matchCount: row.match_count, sample: [], segment, alreadySaved,
    confirm: alreadySaved ? 'This preview was saved already; here is its segment.' : `Saved with ${segment.memberCount} members (the preview counted ${row.match_count}).`,
  });
  if (row.saved_segment_id) return answer(await requireSegment(db, orgId, row.saved_segment_id), true);
  if (row.expired) throw new StewardError('conflict', 'This preview has expired', { hint: 'Preview the request again with people_build_semantic_segment.' });
  const segment = await createSegmentFromTemplate(db, orgId, {
    templateId: 'custom', name: input.name, description: input.description ?? `From the request: ${row.request}`.slice(0, 500), rules,
  });
  await db.query('UPDATE semantic_segment_previews SET saved_segment_id = $3, saved_at = now() WHERE org_id = $1 AND id = $2', [orgId, input.previewId, segment.id]);
  return answer(segment, false);
}
