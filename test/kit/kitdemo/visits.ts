import { randomUUID } from 'node:crypto';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { listPage, notFound } from '../../../modules/kit';
import { requireContact } from '../../../modules/people/api';

/** The sample module's services: everything its tools do with the database. */
export interface Visit {
  id: string;
  contactId: string | null;
  place: string;
  createdAt: string;
  deleted: boolean;
}

interface VisitRow {
  id: string;
  contact_id: string | null;
  place: string;
  created_at: Date;
  deleted_at: Date | null;
}

const toVisit = (row: VisitRow): Visit => ({
  id: row.id, contactId: row.contact_id, place: row.place, createdAt: row.created_at.toISOString(), deleted: row.deleted_at !== null,
});

/** The contact is checked through the people module's own service: a foreign id is "not found", as a missing one is. */
export async function recordVisit(db: Queryable, orgId: string, contactId: string, place: string): Promise<Visit> {
  await requireContact(db, orgId, contactId);
  const row = await queryOne<VisitRow>(db, 'INSERT INTO kitdemo_visits (id, org_id, contact_id, place) VALUES ($1, $2, $3, $4) RETURNING *',
    [randomUUID(), orgId, contactId, place]);
  return toVisit(row!);
}

export async function listVisits(db: Queryable, orgId: string, options: { limit: number; cursor?: string; contactId?: string }) {
  const { rows, nextCursor } = await listPage<VisitRow>(db, {
    table: 'kitdemo_visits', orgId, limit: options.limit, cursor: options.cursor,
    ...(options.contactId ? { where: 'contact_id = $4', values: [options.contactId] } : {}),
  });
  return { visits: rows.map(toVisit), nextCursor };
}

export async function getVisit(db: Queryable, orgId: string, id: string): Promise<Visit> {
  const row = await queryOne<VisitRow>(db, 'SELECT * FROM kitdemo_visits WHERE org_id = $1 AND id = $2', [orgId, id]);
  if (!row) throw notFound('Visit', id);
  return toVisit(row);
}

export async function countVisits(db: Queryable, orgId: string): Promise<number> {
  const rows = await queryRows<{ n: number }>(db, 'SELECT count(*)::int AS n FROM kitdemo_visits WHERE org_id = $1 AND deleted_at IS NULL', [orgId]);
  return rows[0]?.n ?? 0;
}
