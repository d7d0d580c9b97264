import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { withModels } from '../../db/sequelize';
import { requireContact } from './contacts';
import { Tag as TagModel, TagCategory } from './models';

export interface Tag {
  id: string;
  name: string;
  colour: string | null;
  categoryId: string | null;
  category: string | null;
  contactCount: number;
}

// The listing shape joins the category and counts live tagged contacts: SQL, not a finder.
const TAG_SELECT = `
  SELECT t.id, t.name, t.colour, t.category_id AS "categoryId", tc.name AS category,
    (SELECT count(*)::int FROM contact_tags ct JOIN contacts c ON c.id = ct.contact_id AND c.deleted_at IS NULL WHERE ct.tag_id = t.id) AS "contactCount"
  FROM tags t LEFT JOIN tag_categories tc ON tc.id = t.category_id`;

export async function listTags(db: Queryable, orgId: string, categoryId?: string): Promise<Tag[]> {
  return queryRows<Tag>(db, `${TAG_SELECT} WHERE t.org_id = $1 AND ($2::uuid IS NULL OR t.category_id = $2) ORDER BY lower(t.name)`, [orgId, categoryId ?? null]);
}

export async function requireTag(db: Queryable, orgId: string, ref: { tagId?: string; name?: string }): Promise<Tag> {
  const tag = ref.tagId
    ? await queryOne<Tag>(db, `${TAG_SELECT} WHERE t.org_id = $1 AND t.id = $2`, [orgId, ref.tagId])
    : await queryOne<Tag>(db, `${TAG_SELECT} WHERE t.org_id = $1 AND lower(t.name) = lower($2)`, [orgId, ref.name ?? '']);
  if (!tag) throw new StewardError('not_found', `Tag ${ref.tagId ?? `"${ref.name}"`} was not found`, { hint: 'people_list_tags lists the tags.' });
  return tag;
}

async function requireCategory(db: Queryable, orgId: string, categoryId: string): Promise<void> {
  const found = await withModels(db, (transaction) => TagCategory.count({ where: { orgId, id: categoryId }, transaction }));
  if (!found) throw new StewardError('not_found', `Tag category ${categoryId} was not found`);
}

// Name lookups compare lower(name), as the unique index does: SQL (see db/sequelize.ts on fn()).
async function assertTagNameFree(db: Queryable, orgId: string, name: string, exceptId?: string): Promise<void> {
  const clash = await queryOne(db, 'SELECT 1 FROM tags WHERE org_id = $1 AND lower(name) = lower($2) AND ($3::uuid IS NULL OR id <> $3)', [orgId, name, exceptId ?? null]);
  if (clash) throw new StewardError('conflict', `A tag named "${name}" already exists`);
}

export async function createTag(db: Queryable, orgId: string, input: { name: string; colour?: string; categoryId?: string }): Promise<Tag> {
  await assertTagNameFree(db, orgId, input.name);
  if (input.categoryId) await requireCategory(db, orgId, input.categoryId);
  const id = randomUUID();
  await withModels(db, (transaction) => TagModel.create(
    { id, orgId, name: input.name, colour: input.colour ?? null, categoryId: input.categoryId ?? null },
    { transaction },
  ));
  return requireTag(db, orgId, { tagId: id });
}

export async function updateTag(db: Queryable, orgId: string, input: { tagId: string; name?: string; colour?: string | null; categoryId?: string | null }): Promise<Tag> {
  await requireTag(db, orgId, { tagId: input.tagId });
  if (input.name) await assertTagNameFree(db, orgId, input.name, input.tagId);
  if (input.categoryId) await requireCategory(db, orgId, input.categoryId);
  if (input.name === undefined && input.colour === undefined && input.categoryId === undefined) {
    throw new StewardError('validation_failed', 'Nothing to update: give name, colour or categoryId');
  }
  // A missing name keeps the old one; colour and categoryId change whenever given (null clears them).
  const changes: Partial<Pick<TagModel, 'name' | 'colour' | 'categoryId'>> = {};
  if (input.name != null) changes.name = input.name;
  if (input.colour !== undefined) changes.colour = input.colour;
  if (input.categoryId !== undefined) changes.categoryId = input.categoryId;
  if (Object.keys(changes).length > 0) {
    await withModels(db, (transaction) => TagModel.update(changes, { where: { orgId, id: input.tagId }, transaction }));
  }
  return requireTag(db, orgId, { tagId: input.tagId });
}

export async function deleteTag(db: Queryable, orgId: string, ref: { tagId?: string; name?: string }): Promise<{ tag: Tag; untaggedContacts: number }> {
  const tag = await requireTag(db, orgId, ref);
  await withModels(db, (transaction) => TagModel.destroy({ where: { orgId, id: tag.id }, transaction }));
  return { tag, untaggedContacts: tag.contactCount };
}

/** Tags a contact by tag names, creating tags that do not exist yet; re-adding a tag is a no-op. */
export async function addContactTags(db: Queryable, orgId: string, contactId: string, names: string[]): Promise<{ added: string[]; created: string[] }> {
  await requireContact(db, orgId, contactId);
  const added: string[] = [];
  const created: string[] = [];
  for (const name of new Set(names.map((n) => n.trim()))) {
    let tag = await queryOne<{ id: string; name: string }>(db, 'SELECT id, name FROM tags WHERE org_id = $1 AND lower(name) = lower($2)', [orgId, name]);
    if (!tag) {
      const row = await withModels(db, (transaction) => TagModel.create({ id: randomUUID(), orgId, name }, { transaction }));
      tag = { id: row.id, name };
      created.push(name);
    }
    // ON CONFLICT DO NOTHING and its row count say whether the tag was new to the contact: SQL.
    const result = await db.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [orgId, contactId, tag.id]);
    if ((result.rowCount ?? 0) > 0) added.push(tag.name);
  }
  return { added, created };
}

export async function removeContactTags(db: Queryable, orgId: string, contactId: string, names: string[]): Promise<{ removed: string[]; notTagged: string[] }> {
  await requireContact(db, orgId, contactId);
  const removed: string[] = [];
  const notTagged: string[] = [];
  for (const name of new Set(names.map((n) => n.trim()))) {
    const result = await db.query(`
      DELETE FROM contact_tags ct USING tags t
      WHERE ct.tag_id = t.id AND ct.org_id = $1 AND ct.contact_id = $2 AND lower(t.name) = lower($3)`, [orgId, contactId, name]);
    ((result.rowCount ?? 0) > 0 ? removed : notTagged).push(name);
  }
  return { removed, notTagged };
}

export async function createTagCategory(db: Queryable, orgId: string, name: string) {
  const clash = await queryOne(db, 'SELECT 1 FROM tag_categories WHERE org_id = $1 AND lower(name) = lower($2)', [orgId, name]);
  if (clash) throw new StewardError('conflict', `A tag category named "${name}" already exists`);
  return withModels(db, async (transaction) => {
    const category = await TagCategory.create({ id: randomUUID(), orgId, name }, { transaction });
    return { id: category.id, name };
  });
}

export async function updateTagCategory(db: Queryable, orgId: string, categoryId: string, name: string) {
  await requireCategory(db, orgId, categoryId);
  const clash = await queryOne(db, 'SELECT 1 FROM tag_categories WHERE org_id = $1 AND lower(name) = lower($2) AND id <> $3', [orgId, name, categoryId]);
  if (clash) throw new StewardError('conflict', `A tag category named "${name}" already exists`);
  return withModels(db, async (transaction) => {
    await TagCategory.update({ name }, { where: { orgId, id: categoryId }, transaction });
    return { id: categoryId, name };
  });
}

/** Removes a tag category; its tags stay and lose their category (the schema sets it to NULL). */
export async function deleteTagCategory(db: Queryable, orgId: string, categoryId: string): Promise<{ id: string; uncategorisedTags: number }> {
  await requireCategory(db, orgId, categoryId);
  const tags = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM tags WHERE org_id = $1 AND category_id = $2', [orgId, categoryId]);
  await withModels(db, (transaction) => TagCategory.destroy({ where: { orgId, id: categoryId }, transaction }));
  return { id: categoryId, uncategorisedTags: tags?.n ?? 0 };
}

/** Tag categories with how many tags each holds. */
export async function listTagCategories(db: Queryable, orgId: string): Promise<Array<{ id: string; name: string; tagCount: number }>> {
  const rows = await queryRows<{ id: string; name: string; tag_count: number }>(db, `
    SELECT c.id, c.name, count(t.id)::int AS tag_count FROM tag_categories c LEFT JOIN tags t ON t.category_id = c.id
    WHERE c.org_id = $1 GROUP BY c.id, c.name ORDER BY lower(c.name)`, [orgId]);
  return rows.map((row) => ({ id: row.id, name: row.name, tagCount: row.tag_count }));
}
