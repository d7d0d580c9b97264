import { createHash } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryRows, withTenantTransaction, type Pool, type Queryable } from '../../../db/pool';
import { AI_URL_SETTING, aiSettings, cosine, embed, type AiSettings } from '../../platform/api';
import { displayNameOf } from '../contacts';
import { visibleNoteSql } from '../notes';
import { compileRules, type RuleSet } from '../segment-rules';
import { previewRules } from '../segments';
import { interpretRequest, type Reading } from './interpret';

/**
 * Contact search by meaning. The request is read into segment rules over real fields (interpret.ts),
 * answered by Postgres; the words left over are searched in each contact's free text — notes the
 * caller may read and interests (custom field values) — by meaning through the configured
 * OpenAI-compatible embeddings provider (MEDIA_AI_API_URL, MEDIA_AI_EMBEDDING_MODEL), or else by
 * Postgres full-text search, and the answer says which. Restricted notes (private, or amber/red)
 * feed none of it for a caller without people:safeguarding: their text is never read into the
 * searched documents, and their embeddings are cached apart and read only for holders.
 */
export const MAX_CANDIDATES = 5000;
/** Contacts whose free text is embedded (or re-embedded) in one call at most; the rest are matched by full text this time. */
export const MAX_EMBEDDED_PER_CALL = 500;
const EMBED_BATCH = 100;
/** Contacts the embeddings job looks at per organisation and run. */
const MAX_EMBED_SCAN = 100_000;
/** The free text of one contact that is searched, at most. */
const MAX_DOC_CHARS = 8000;
export const DEFAULT_MIN_SIMILARITY = 0.35;

export type FreeTextMethod = 'embeddings' | 'full_text' | 'none';

export interface SearchOutcome {
  interpretation: { rules: RuleSet | null; readings: Reading[]; freeText: string | null };
  freeTextSearch: { method: FreeTextMethod; note: string; includesRestrictedNotes: boolean; embeddedNow: number };
  total: number;
  contacts: Array<{ contactId: string; displayName: string; email: string | null; score: number | null; matchedOn: Array<'rules' | 'free_text'> }>;
}

interface Candidate { id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; doc: string }

/** Contacts the rules select (every live contact without rules), each with the free text this caller may search. */
async function candidates(db: Queryable, orgId: string, rules: RuleSet | null, seesRestricted: boolean, withText: boolean, max = MAX_CANDIDATES + 1): Promise<Candidate[]> {
  const params: unknown[] = [orgId];
  const where = rules ? `AND (${compileRules(rules, params)})` : '';
  params.push(max);
  const limitParam = `$${params.length}`;
  // Free text: notes the caller may read (the one visibility rule, visibleNoteSql) and custom field values (interests…).
  const doc = withText ? `left(concat_ws(' ',
      (SELECT string_agg(n.content, ' ' ORDER BY n.created_at) FROM notes n WHERE n.org_id = c.org_id AND n.contact_id = c.id AND ${visibleNoteSql('n', seesRestricted)}),
      (SELECT string_agg(value, ' ') FROM jsonb_each_text(c.custom_fields))), ${MAX_DOC_CHARS})` : "''";
  return queryRows<Candidate>(db, `SELECT c.id, c.first_name, c.last_name, c.preferred_name, c.email, ${doc} AS doc
    FROM contacts c WHERE c.org_id = $1 AND c.deleted_at IS NULL ${where}
    ORDER BY lower(c.last_name), lower(c.first_name), c.id LIMIT ${limitParam}`, params);
}

function tooMany(): StewardError {
  return new StewardError('validation_failed', `The request matches more than ${MAX_CANDIDATES} contacts; narrow it (a field, a place, a time)`, {
    hint: 'people_list_segment_fields lists what can be said.',
  });
}

/** Full text: any of the words (English stemming), ranked. */
async function fullTextScores(db: Queryable, docs: Candidate[], freeText: string): Promise<Map<string, number>> {
  if (docs.length === 0) return new Map();
  const rows = await queryRows<{ id: string; rank: number }>(db, `
    SELECT d.id, ts_rank(to_tsvector('english', d.doc), q)::float8 AS rank
    FROM unnest($1::uuid[], $2::text[]) AS d(id, doc), websearch_to_tsquery('english', $3) q
    WHERE to_tsvector('english', d.doc) @@ q`, [docs.map((d) => d.id), docs.map((d) => d.doc), freeText.split(/\s+/).join(' or ')]);
  return new Map(rows.map((row) => [row.id, Math.round(row.rank * 1000) / 1000]));
}

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Embeddings of each candidate's text for this kind of reader: fresh cached ones (same text hash and
 * model), and up to MAX_EMBEDDED_PER_CALL others embedded now. A search runs in a read-only
 * transaction, so it does not store what it embedded; the `people.semantic_embeddings` job keeps the
 * cache filled (refreshEmbeddings).
 */
async function embeddingsOf(db: Queryable, orgId: string, settings: AiSettings, reader: 'open' | 'all', docs: Candidate[], store: boolean): Promise<{ vectors: Map<string, number[]>; embeddedNow: number }> {
  const withText = docs.filter((d) => d.doc.trim().length > 0);
  const cached = await queryRows<{ contact_id: string; text_hash: string; embedding: number[] }>(db,
    'SELECT contact_id, text_hash, embedding FROM contact_text_embeddings WHERE org_id = $1 AND reader = $2 AND model = $3 AND contact_id = ANY($4::uuid[])',
    [orgId, reader, settings.embeddingModel, withText.map((d) => d.id)]);
  const byId = new Map(cached.map((row) => [row.contact_id, row]));
  const vectors = new Map<string, number[]>();
  const stale: Candidate[] = [];
  for (const doc of withText) {
    const row = byId.get(doc.id);
    if (row && row.text_hash === hashOf(doc.doc)) vectors.set(doc.id, row.embedding);
    else stale.push(doc);
  }
  const toEmbed = stale.slice(0, MAX_EMBEDDED_PER_CALL);
  for (let i = 0; i < toEmbed.length; i += EMBED_BATCH) {
    const batch = toEmbed.slice(i, i + EMBED_BATCH);
    const embedded = await embed(settings, batch.map((d) => d.doc));
    for (const [index, doc] of batch.entries()) {
      vectors.set(doc.id, embedded[index]!);
      if (!store) continue;
      await db.query(`INSERT INTO contact_text_embeddings (org_id, contact_id, reader, model, text_hash, embedding) VALUES ($1, $2, $3, $4, $5, $6)
        ON CONFLICT (org_id, contact_id, reader) DO UPDATE SET model = EXCLUDED.model, text_hash = EXCLUDED.text_hash, embedding = EXCLUDED.embedding, updated_at = now()`,
      [orgId, doc.id, reader, settings.embeddingModel, hashOf(doc.doc), embedded[index]]);
    }
  }
  return { vectors, embeddedNow: toEmbed.length };
}

/**
 * The job `people.semantic_embeddings`: embeds every organisation's contacts whose free text changed
 * (both readers, each from its own text), MAX_EMBEDDED_PER_CALL per reader per run. Nothing without a provider.
 */
export async function refreshEmbeddings(pool: Pool, input: { now: Date; orgId?: string }): Promise<Record<string, number>> {
  const settings = providerSettings();
  if (!settings) return { organisations: 0, embedded: 0 };
  const organisations = input.orgId ? [input.orgId]
    : (await queryRows<{ org_id: string }>(pool, 'SELECT DISTINCT org_id FROM contacts WHERE deleted_at IS NULL ORDER BY org_id')).map((row) => row.org_id);
  let embedded = 0;
  for (const orgId of organisations) {
    embedded += await withTenantTransaction(pool, orgId, async (db) => {
      let made = 0;
      for (const reader of ['open', 'all'] as const) {
        const docs = await candidates(db, orgId, null, reader === 'all', true, MAX_EMBED_SCAN);
        made += (await embeddingsOf(db, orgId, settings, reader, docs, true)).embeddedNow;
      }
      return made;
    });
  }
  return { organisations: organisations.length, embedded };
}

function providerSettings(): AiSettings | null {
  try {
    return aiSettings();
  } catch {
    return null;
  }
}

/** Reads the request and answers it: rules from Postgres, free text by meaning (or full text, said so). */
export async function semanticSearch(
  db: Queryable, orgId: string, seesRestricted: boolean, input: { query: string; limit: number; minSimilarity: number },
): Promise<SearchOutcome> {
  const interpretation = interpretRequest(input.query);
  const { rules, freeText } = interpretation;
  const restrictedNote = seesRestricted ? 'Restricted notes were searched (this caller holds people:safeguarding).' : 'Restricted notes were not searched (they need people:safeguarding).';
  const view = (c: Candidate, score: number | null, matchedOn: Array<'rules' | 'free_text'>) => ({ contactId: c.id, displayName: displayNameOf(c), email: c.email, score, matchedOn });

  if (freeText === null) {
    if (!rules) {
      throw new StewardError('validation_failed', 'Nothing in the request could be searched', {
        issues: [{ path: 'query', message: 'say who you are looking for: a stage, an age, a place, a season, or words in their notes or interests' }],
      });
    }
    // Rules alone: counted and listed by Postgres, exactly as a segment's preview is.
    const preview = await previewRules(db, orgId, rules, input.limit);
    return {
      interpretation,
      freeTextSearch: { method: 'none', note: 'Every word was read as a field rule; no free text to search.', includesRestrictedNotes: false, embeddedNow: 0 },
      total: preview.count,
      contacts: preview.sample.map((c) => ({ contactId: c.contactId, displayName: c.displayName, email: c.email, score: null, matchedOn: ['rules'] })),
    };
  }
  const found = await candidates(db, orgId, rules, seesRestricted, true);
  if (found.length > MAX_CANDIDATES) throw tooMany();

  const matchedOn: Array<'rules' | 'free_text'> = rules ? ['rules', 'free_text'] : ['free_text'];
  const settings = providerSettings();
  let method: FreeTextMethod = 'full_text';
  let note = `No embeddings provider is configured (${AI_URL_SETTING} and MEDIA_AI_EMBEDDING_MODEL), so "${freeText}" was matched by Postgres full-text search: words and their forms, not meaning.`;
  let scores = new Map<string, number>();
  let embeddedNow = 0;
  if (settings) {
    try {
      const reader = seesRestricted ? 'all' : 'open';
      const { vectors, embeddedNow: made } = await embeddingsOf(db, orgId, settings, reader, found, false);
      embeddedNow = made;
      const [queryVector] = await embed(settings, [freeText]);
      for (const [id, vector] of vectors) {
        const similarity = cosine(queryVector!, vector);
        if (similarity >= input.minSimilarity) scores.set(id, Math.round(similarity * 1000) / 1000);
      }
      method = 'embeddings';
      const left = found.filter((d) => d.doc.trim() && !vectors.has(d.id));
      note = `"${freeText}" was matched by meaning with the embeddings model ${settings.embeddingModel} (similarity at least ${input.minSimilarity}).`;
      if (left.length > 0) {
        // Contacts not embedded yet this call are matched by full text, so nobody is missed.
        for (const [id, rank] of await fullTextScores(db, left, freeText)) scores.set(id, rank);
        note += ` ${left.length} contacts not yet embedded were matched by full text this time.`;
      }
    } catch (error) {
      if (!(error instanceof StewardError)) throw error;
      scores = await fullTextScores(db, found, freeText);
      method = 'full_text';
      note = `The embeddings provider could not answer (${error.message}), so "${freeText}" was matched by Postgres full-text search instead.`;
    }
  } else {
    scores = await fullTextScores(db, found, freeText);
  }
  const ranked = found.filter((c) => scores.has(c.id)).sort((a, b) => scores.get(b.id)! - scores.get(a.id)!);
  return {
    interpretation,
    freeTextSearch: { method, note: `${note} ${restrictedNote}`, includesRestrictedNotes: seesRestricted, embeddedNow },
    total: ranked.length,
    contacts: ranked.slice(0, input.limit).map((c) => view(c, scores.get(c.id)!, matchedOn)),
  };
}
