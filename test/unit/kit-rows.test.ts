import { MODULES } from '../../modules';
import { listPage, type RowOf } from '../../modules/kit';
import { Template, type TemplateVersion } from '../../modules/templates/models/templates';
import type { Queryable } from '../../db/pool';

/**
 * Row types derive from the models (RowOf): an attribute's row key is its name in snake_case,
 * as the models' `underscored` option names its column. A model naming a column any other way
 * would make its RowOf lie, so every model of every module is held to it here.
 */
const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

it('every model attribute is stored in the column its snake_case name says', () => {
  const differing = MODULES.flatMap((module) => [...(module.models ?? [])]).flatMap((model) =>
    Object.entries(model.getAttributes()).filter(([name, attribute]) => attribute.field !== snakeCase(name)).map(([name, attribute]) => `${model.name}.${name} → ${attribute.field}`));
  expect(differing).toEqual([]);
});

it('RowOf names a model\'s columns with the types the model declares', () => {
  // Checked by the type checker: each line fails to compile if RowOf maps the name or the type wrongly.
  const keys: Array<keyof RowOf<TemplateVersion>> = ['id', 'org_id', 'template_id', 'whatsapp_template_id', 'created_by_user_id', 'whatsapp_status_at'];
  const status: RowOf<TemplateVersion>['status'] = 'draft';
  const archivedAt: RowOf<Template>['archived_at'] = null;
  expect({ keys: keys.length, status, archivedAt }).toEqual({ keys: 6, status: 'draft', archivedAt: null });
});

it('a page of a model without the columns paging needs is refused before any query', async () => {
  const db = { query: () => { throw new Error('no query expected'); } } as unknown as Queryable;
  // templates are archived, never soft deleted: a page that leaves deleted rows out has no deleted_at to read.
  await expect(listPage(db, { model: Template, orgId: 'org', limit: 10 })).rejects.toThrow('listPage: model Template has no deleted_at column, which a page of its rows needs');
});
