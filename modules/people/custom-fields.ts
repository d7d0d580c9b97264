import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { withModels } from '../../db/sequelize';
import { RELATIONSHIP_WORDS } from './family-labels';
import { isIsoDate } from './dates';
import { CustomFieldDefinition as DefinitionModel } from './models';

export const CUSTOM_FIELD_TYPES = ['text', 'number', 'boolean', 'date', 'select'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export interface CustomFieldDefinition {
  id: string;
  key: string;
  label: string;
  type: CustomFieldType;
  options: string[] | null;
  section: string | null;
}

// The listing joins each field's section and sorts by it: SQL.
export async function listDefinitions(db: Queryable, orgId: string): Promise<CustomFieldDefinition[]> {
  return queryRows<CustomFieldDefinition>(db, `
    SELECT d.id, d.key, d.label, d.type, d.options, s.name AS section
    FROM custom_field_definitions d LEFT JOIN custom_field_sections s ON s.id = d.section_id
    WHERE d.org_id = $1 ORDER BY s.position NULLS LAST, s.name NULLS LAST, d.label`, [orgId]);
}

export async function createDefinition(
  db: Queryable, orgId: string,
  input: { key: string; label: string; type: CustomFieldType; options?: string[]; section?: string },
): Promise<CustomFieldDefinition> {
  if (RELATIONSHIP_WORDS.has(input.key.toLowerCase())) {
    throw new StewardError('validation_failed', `"${input.key}" is a family relationship, not a custom field`, {
      hint: 'Link relatives with people_add_family_relationship.',
    });
  }
  if (input.type === 'select' && !input.options?.length) {
    throw new StewardError('validation_failed', 'A select field needs options', { issues: [{ path: 'options', message: 'required for type select' }] });
  }
  const existing = await withModels(db, (transaction) => DefinitionModel.count({ where: { orgId, key: input.key }, transaction }));
  if (existing > 0) throw new StewardError('conflict', `A custom field with key "${input.key}" already exists`);
  let sectionId: string | null = null;
  if (input.section) {
    // Find-or-create on the lower(name) unique index, in one statement: SQL.
    const section = await queryOne<{ id: string }>(db, `
      INSERT INTO custom_field_sections (id, org_id, name) VALUES ($1, $2, $3)
      ON CONFLICT (org_id, lower(name)) DO UPDATE SET name = custom_field_sections.name RETURNING id`, [randomUUID(), orgId, input.section]);
    sectionId = section!.id;
  }
  const options = input.type === 'select' ? input.options! : null;
  const created = await withModels(db, (transaction) => DefinitionModel.create(
    { id: randomUUID(), orgId, key: input.key, label: input.label, type: input.type, options, sectionId },
    { transaction },
  ));
  return { id: created.id, key: input.key, label: input.label, type: input.type, options, section: input.section ?? null };
}

function valueMatches(definition: CustomFieldDefinition, value: unknown): boolean {
  switch (definition.type) {
    case 'text': return typeof value === 'string';
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'boolean': return typeof value === 'boolean';
    case 'date': return isIsoDate(value);
    case 'select': return typeof value === 'string' && (definition.options ?? []).includes(value);
  }
}

function expected(definition: CustomFieldDefinition): string {
  if (definition.type === 'select') return `one of ${(definition.options ?? []).join(', ')}`;
  if (definition.type === 'date') return 'a date as YYYY-MM-DD';
  return `a ${definition.type}`;
}

/** Refuses unknown keys and wrongly typed values, naming the definition's key and type; null clears a value. */
export async function validateCustomFields(db: Queryable, orgId: string, values: Record<string, unknown>, pathPrefix = 'customFields'): Promise<void> {
  const definitions = new Map((await listDefinitions(db, orgId)).map((d) => [d.key, d]));
  const issues: Array<{ path: string; message: string }> = [];
  for (const [key, value] of Object.entries(values)) {
    const definition = definitions.get(key);
    if (!definition) {
      const known = [...definitions.values()].map((d) => `${d.key} (${d.type})`).join(', ') || 'none defined';
      const family = RELATIONSHIP_WORDS.has(key.toLowerCase()) ? ' Family links go through people_add_family_relationship.' : '';
      issues.push({ path: `${pathPrefix}.${key}`, message: `unknown custom field; defined: ${known}.${family}` });
    } else if (value !== null && !valueMatches(definition, value)) {
      issues.push({ path: `${pathPrefix}.${key}`, message: `field ${definition.key} is of type ${definition.type}: expected ${expected(definition)}` });
    }
  }
  if (issues.length > 0) {
    throw new StewardError('validation_failed', `Invalid custom fields: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
      issues, hint: 'people_list_custom_field_definitions lists the keys and types.',
    });
  }
}
