import { z } from 'zod';
import type { InferAttributes, Model, ModelStatic } from 'sequelize';
import { StewardError } from '../core/errors';
import type { Scope } from '../core/scopes';
import type { Effect } from '../core/tool-plan';
import { queryOne, queryRows, type Queryable } from '../db/pool';
import { sqlIdentifier as identifier } from '../db/sql';
import { defineTool, type AnyObjectSchema, type AnyTool, type ToolDefinition } from './tool';

/**
 * The shapes every module repeats, written once: tool declarations that cannot drift from
 * their module, cursor-paginated lists, get by id or name, soft delete and restore, bulk
 * inputs with a maximum, and "a foreign id behaves as a missing one".
 */

// ---------------------------------------------------------------- tools

type ToolSpec<I extends AnyObjectSchema, O extends AnyObjectSchema> =
  Omit<ToolDefinition<I, O>, 'name' | 'module' | 'effect' | 'scope' | 'listed'> & { scope?: Scope; listed?: boolean };

/**
 * Tool declarations for one module: `tools.read('list_visits', {...})` is `<module>_list_visits`,
 * in the module, with the module's read scope unless another is named, and unlisted unless
 * it says so (the default tools/list stays small; tool search finds the rest).
 */
export function toolsFor(module: string, scopes: { read: Scope; write: Scope }) {
  const declare = (effect: Effect, defaultScope: Scope) =>
    <I extends AnyObjectSchema, O extends AnyObjectSchema>(verbNoun: string, spec: ToolSpec<I, O>): AnyTool =>
      defineTool<I, O>({ ...spec, name: `${module}_${verbNoun}`, module, effect, scope: spec.scope ?? defaultScope, listed: spec.listed ?? false });
  return { read: declare('read', scopes.read), write: declare('write', scopes.write), send: declare('send', scopes.write) };
}

// ---------------------------------------------------------------- missing and foreign ids

/**
 * The one answer for an id that is not there: another organisation's id gets exactly this
 * too, so nobody can learn that it exists elsewhere.
 */
export function notFound(kind: string, id: string, hint?: string): StewardError {
  return new StewardError('not_found', `${kind} ${id} was not found`, hint ? { hint } : {});
}


// ---------------------------------------------------------------- cursor pagination

/** Input fields of a cursor-paginated list. */
export const cursorInput = {
  limit: z.number().int().min(1).max(100).default(25).describe('How many to return (1 to 100)'),
  cursor: z.string().max(200).optional().describe('nextCursor from the previous page; omit for the first page'),
};

/** The deepest offset an offset-paged list (exports, segment members) accepts: past it, filter instead. */
export const MAX_LIST_OFFSET = 1_000_000;

/** Output fields of a cursor-paginated list. */
export const cursorOutput = {
  nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page'),
};

interface CursorPosition {
  at: string;
  id: string;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id])).toString('base64url');
}

/** A cursor the caller changed or made up is a validation error, never a database error. */
export function decodeCursor(cursor: string): CursorPosition {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof at === 'string' && typeof id === 'string' && !Number.isNaN(Date.parse(at)) && z.uuid().safeParse(id).success) return { at, id };
  } catch {
    // falls through to the refusal below
  }
  throw new StewardError('validation_failed', 'The cursor is not one this list gave out', {
    hint: 'Pass nextCursor from the previous page unchanged, or omit cursor for the first page.',
    issues: [{ path: 'cursor', message: 'unrecognised cursor' }],
  });
}

/** What a page of rows is asked with: `where` adds module filters (with `$n` numbered after the three the page uses). */
interface PageOptions { orgId: string; limit: number; cursor?: string; where?: string; values?: unknown[]; includeDeleted?: boolean }
interface Page<R> { rows: R[]; nextCursor: string | null }

/**
 * One page of an organisation's rows, newest first, keyed on (created_at, id) so a row
 * added between pages neither repeats nor goes missing. Given the table's model, the table
 * and the row type come from it (RowOf); given a table name, the caller names the row type.
 */
export async function listPage<M extends Model>(db: Queryable, options: PageOptions & { model: ModelStatic<M> }): Promise<Page<RowOf<M>>>;
export async function listPage<R extends { id: string; created_at: Date | string }>(db: Queryable, options: PageOptions & { table: string }): Promise<Page<R>>;
export async function listPage(db: Queryable, options: PageOptions & ({ model: ModelStatic<Model> } | { table: string })): Promise<Page<PagedRow>> {
  const table = identifier('model' in options ? pagedTableOf(options.model, options.includeDeleted) : options.table);
  const position = options.cursor ? decodeCursor(options.cursor) : null;
  const clauses = ['org_id = $1', '($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))'];
  if (!options.includeDeleted) clauses.push('deleted_at IS NULL');
  if (options.where) clauses.push(`(${options.where})`);
  const values = [options.orgId, position?.at ?? null, position?.id ?? null, ...(options.values ?? [])];
  values.push(options.limit + 1);
  // page_at is created_at to the microsecond (a Date keeps milliseconds, and rows written in one transaction share it to the millisecond), so the page stays SQL.
  const rows = await queryRows<PagedRow & { page_at?: string }>(db, `SELECT *, to_json(created_at) #>> '{}' AS page_at FROM ${table}
    WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${values.length}`, values);
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > options.limit && last ? encodeCursor({ at: last.page_at!, id: last.id }) : null;
  for (const row of page) delete row.page_at;
  return { rows: page, nextCursor };
}

type PagedRow = { id: string; created_at: Date | string };

/** The model's table, once it is known to have the columns a page reads: refused at the call rather than as an SQL error. */
function pagedTableOf(model: ModelStatic<Model>, includeDeleted = false): string {
  const columns = new Set(Object.values(model.getAttributes()).map((attribute) => attribute.field));
  const needed = ['id', 'org_id', 'created_at', ...(includeDeleted ? [] : ['deleted_at'])];
  const missing = needed.filter((column) => !columns.has(column));
  if (missing.length > 0) throw new Error(`listPage: model ${model.name} has no ${missing.join(', ')} column, which a page of its rows needs`);
  return model.getTableName() as string;
}

/**
 * A model's row as `SELECT *` gives it: each attribute under its column name (camelCase to
 * snake_case, as the models' `underscored` option maps them), with the type the model declares.
 * So a module's row type is its model, not an interface kept beside it by hand.
 */
export type RowOf<M extends Model> = { [K in keyof InferAttributes<M> & string as SnakeCase<K>]: InferAttributes<M>[K] };
type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}` ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}` : S;

// ---------------------------------------------------------------- get by id or name

/** Input fields naming one record by id or by name (exactly one; see `exactlyOne` in tool.ts). */
export function idOrNameInput(kind: string) {
  return {
    id: z.uuid().optional().describe(`The ${kind}'s id`),
    name: z.string().trim().min(1).max(200).optional().describe(`The ${kind}'s name (case does not matter)`),
  };
}

/**
 * A live row of the organisation by id, or by name ignoring case. Two rows sharing the
 * name is a conflict the caller resolves with the id, never a guess.
 */
export async function findByIdOrName<R>(
  db: Queryable,
  options: { table: string; kind: string; orgId: string; id?: string; name?: string; nameColumn?: string; hint?: string },
): Promise<R> {
  const table = identifier(options.table);
  if (options.id) {
    const row = await queryOne<R & object>(db, `SELECT * FROM ${table} WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL`, [options.orgId, options.id]);
    if (!row) throw notFound(options.kind, options.id, options.hint);
    return row;
  }
  const column = identifier(options.nameColumn ?? 'name');
  const rows = await queryRows<R & object>(db, `SELECT * FROM ${table} WHERE org_id = $1 AND lower(${column}) = lower($2) AND deleted_at IS NULL LIMIT 2`, [options.orgId, options.name]);
  if (rows.length === 0) throw notFound(options.kind, `"${options.name}"`, options.hint);
  if (rows.length > 1) throw new StewardError('conflict', `More than one ${options.kind} is named "${options.name}"`, { hint: 'Name it by id instead.' });
  return rows[0];
}

// ---------------------------------------------------------------- soft delete and restore

/** Marks a live row deleted; a missing, foreign or already deleted id is not found. */
export async function softDelete(db: Queryable, options: { table: string; kind: string; orgId: string; id: string }): Promise<void> {
  const table = identifier(options.table);
  const row = await queryOne(db, `UPDATE ${table} SET deleted_at = now() WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id`, [options.orgId, options.id]);
  if (!row) throw notFound(options.kind, options.id);
}

/** Brings a deleted row back; a missing, foreign or live id is not found. */
export async function restore(db: Queryable, options: { table: string; kind: string; orgId: string; id: string }): Promise<void> {
  const table = identifier(options.table);
  const row = await queryOne(db, `UPDATE ${table} SET deleted_at = NULL WHERE org_id = $1 AND id = $2 AND deleted_at IS NOT NULL RETURNING id`, [options.orgId, options.id]);
  if (!row) throw notFound(options.kind, options.id, 'Only a deleted record can be restored.');
}

// ---------------------------------------------------------------- bulk

/** A bulk input: one to `max` items, refused as a whole past the maximum (nothing is half done). */
export function bulkOf<T extends z.ZodType>(item: T, max: number) {
  return z.array(item).min(1, 'give at least one item').max(max, `at most ${max} items in one call; split the rest into further calls`);
}

/**
 * A real calendar day written YYYY-MM-DD: zod's ISO date already refuses days that do not exist
 * (2026-02-30, 2025-02-29), so no module needs a check of its own.
 */
export const calendarDate = () => z.iso.date('a date as YYYY-MM-DD');

/** A range whose `from` is after its `to` is a mistake, not an empty answer. */
export function assertDateRange(range: { from?: string | null; to?: string | null }): void {
  if (range.from && range.to && range.from > range.to) {
    throw new StewardError('validation_failed', '`from` is after `to`', { issues: [{ path: 'from', message: 'must be on or before to' }] });
  }
}
