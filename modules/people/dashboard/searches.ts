import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { notFound } from '../../kit';
import { searchContacts, toSummary } from '../contacts';
import { displayNameOf } from '../display-name';
import { CONTACT_STATUSES, MEMBERSHIP_STATUSES } from '../schemas';

/**
 * Saved CRM searches: a name for a text query with people_search_contacts' filters, run again
 * later against today's contacts. The search itself is people's contact search, unchanged.
 */
export const searchFiltersSchema = z.object({
  query: z.string().trim().max(200).optional().describe('Name, email or phone, in any part'),
  status: z.enum(CONTACT_STATUSES).optional(),
  membershipStatus: z.enum(MEMBERSHIP_STATUSES).optional(),
  tag: z.string().trim().min(1).max(100).optional().describe('Tag name'),
});
export type SearchFilters = z.output<typeof searchFiltersSchema>;

export interface SavedSearchView {
  id: string;
  name: string;
  filters: SearchFilters;
  createdAt: string;
}

type Row = { id: string; name: string; query: string | null; filters: Record<string, string>; created_at: Date };
const view = (row: Row): SavedSearchView => ({
  id: row.id, name: row.name, filters: { ...(row.query ? { query: row.query } : {}), ...row.filters },
  createdAt: row.created_at.toISOString(),
});

export async function listSavedSearches(db: Queryable, orgId: string): Promise<SavedSearchView[]> {
  return (await queryRows<Row>(db, 'SELECT * FROM people_saved_searches WHERE org_id = $1 ORDER BY lower(name)', [orgId])).map(view);
}

/** Saves a search under a name; saving a name that exists replaces its filters (replace: true), else it is a conflict. */
export async function saveSearch(db: Queryable, orgId: string, userId: string, input: { name: string; filters: SearchFilters; replace: boolean }) {
  const { query, ...filters } = input.filters;
  if (!query && Object.keys(filters).length === 0) {
    throw new StewardError('validation_failed', 'A saved search needs a query or at least one filter', { issues: [{ path: 'filters', message: 'empty' }] });
  }
  const existing = await queryOne<{ id: string }>(db, 'SELECT id FROM people_saved_searches WHERE org_id = $1 AND lower(name) = lower($2) FOR UPDATE', [orgId, input.name]);
  if (existing && !input.replace) {
    throw new StewardError('conflict', `A saved search called "${input.name}" already exists`, { hint: 'Pass replace: true to change its filters, or choose another name.' });
  }
  const row = existing
    ? await queryOne<Row>(db, 'UPDATE people_saved_searches SET query = $3, filters = $4::jsonb, updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *',
      [orgId, existing.id, query ?? null, JSON.stringify(filters)])
    : await queryOne<Row>(db, `INSERT INTO people_saved_searches (id, org_id, name, query, filters, created_by_user_id) VALUES ($1, $2, $3, $4, $5::jsonb, $6)
      ON CONFLICT DO NOTHING RETURNING *`, [randomUUID(), orgId, input.name, query ?? null, JSON.stringify(filters), userId]);
  if (!row) throw new StewardError('conflict', `A saved search called "${input.name}" was saved at the same moment`, { hint: 'List saved searches and try again.' });
  return { search: view(row), replaced: Boolean(existing) };
}

export async function deleteSavedSearch(db: Queryable, orgId: string, searchId: string) {
  const row = await queryOne<Row>(db, 'DELETE FROM people_saved_searches WHERE org_id = $1 AND id = $2 RETURNING *', [orgId, searchId]);
  if (!row) throw notFound('Saved search', searchId, 'people_list_crm_search_config lists saved searches.');
  return view(row);
}

export async function executeSavedSearch(db: Queryable, orgId: string, ref: { searchId?: string; name?: string }, limit: number) {
  const row = ref.searchId
    ? await queryOne<Row>(db, 'SELECT * FROM people_saved_searches WHERE org_id = $1 AND id = $2', [orgId, ref.searchId])
    : await queryOne<Row>(db, 'SELECT * FROM people_saved_searches WHERE org_id = $1 AND lower(name) = lower($2)', [orgId, ref.name]);
  if (!row) throw notFound('Saved search', ref.searchId ?? ref.name ?? '', 'people_list_crm_search_config lists saved searches.');
  const search = view(row);
  const contacts = await searchContacts(db, orgId, search.filters.query, search.filters, limit);
  return { search, contacts: contacts.map(toSummary), count: contacts.length };
}

/** What the CRM search accepts: the filters with the values they take today, and the saved searches. */
export async function searchConfig(db: Queryable, orgId: string) {
  const tags = await queryRows<{ name: string }>(db, 'SELECT name FROM tags WHERE org_id = $1 ORDER BY lower(name) LIMIT 500', [orgId]);
  return {
    filters: [
      { field: 'query', kind: 'text' as const, description: 'Name, email or phone, in any part', values: null },
      { field: 'status', kind: 'choice' as const, description: 'Marketing/consent status', values: [...CONTACT_STATUSES] },
      { field: 'membershipStatus', kind: 'choice' as const, description: 'Welcome Desk stage', values: [...MEMBERSHIP_STATUSES] },
      { field: 'tag', kind: 'choice' as const, description: 'Tag name', values: tags.map((tag) => tag.name) },
    ],
    savedSearches: await listSavedSearches(db, orgId),
  };
}

/** The community roster searched by name or email: current members by default. */
export async function communitySearch(db: Queryable, orgId: string, input: { query?: string; includeLeft: boolean; limit: number }) {
  const words = (input.query ?? '').trim().toLowerCase().split(/\s+/).filter(Boolean).slice(0, 6);
  const params: unknown[] = [orgId, input.includeLeft, input.limit];
  const clauses = words.map((word) => {
    params.push(`%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const p = `$${params.length}`;
    return `(lower(concat_ws(' ', c.first_name, c.preferred_name, c.last_name)) LIKE ${p} OR lower(coalesce(c.email, '')) LIKE ${p})`;
  });
  const rows = await queryRows<{ contact_id: string; joined_on: string; left_on: string | null; celebration_consent: boolean; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; membership_status: string | null }>(db, `
    SELECT m.contact_id, to_char(m.joined_on, 'YYYY-MM-DD') AS joined_on, to_char(m.left_on, 'YYYY-MM-DD') AS left_on, m.celebration_consent,
      c.first_name, c.last_name, c.preferred_name, c.email, c.membership_status
    FROM community_memberships m JOIN contacts c ON c.id = m.contact_id AND c.org_id = m.org_id AND c.deleted_at IS NULL
    WHERE m.org_id = $1 AND ($2 OR m.left_on IS NULL) ${clauses.map((clause) => `AND ${clause}`).join(' ')}
    ORDER BY lower(c.last_name) NULLS LAST, lower(c.first_name) NULLS LAST, m.contact_id LIMIT $3`, params);
  return rows.map((row) => ({
    contactId: row.contact_id, displayName: displayNameOf(row), membershipStatus: row.membership_status,
    joinedOn: row.joined_on, leftOn: row.left_on, celebrationConsent: row.celebration_consent,
  }));
}
