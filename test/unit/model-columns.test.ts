import type { Model, ModelStatic } from 'sequelize';
import { queryRows } from '../../db/pool';
import { MODULES } from '../../modules';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/** The Postgres type (udt_name) each Sequelize type stands for in our tables. */
function expectedUdt(type: { key: string; type?: { key: string } }): string {
  if (type.key === 'ARRAY') return `_${expectedUdt(type.type!)}`;
  const udt: Record<string, string> = {
    UUID: 'uuid', TEXT: 'text', STRING: 'varchar', SMALLINT: 'int2', INTEGER: 'int4', BIGINT: 'int8', BOOLEAN: 'bool', DOUBLE: 'float8', 'DOUBLE PRECISION': 'float8',
    DATEONLY: 'date', DATE: 'timestamptz', JSONB: 'jsonb',
  };
  return udt[type.key] ?? `unmapped ${type.key}`;
}

interface Column { table_name: string; column_name: string; udt_name: string; is_nullable: 'YES' | 'NO' }

/**
 * Models are hand-declared; an ORM reading a column that is not there, or writing one it does not
 * know, fails quietly or late. This compares every model with the migrated schema, both ways.
 */
describe('models match the migrated schema', () => {
  let db: TestDatabase;
  let columns: Column[];
  let primaryKeys: Array<{ table_name: string; column_name: string }>;
  const models: ModelStatic<Model>[] = MODULES.flatMap((module) => [...(module.models ?? [])]);

  beforeAll(async () => {
    db = await createTestDatabase();
    // Tables only: a view (people_directory) is a module's published read model, not a model's table.
    columns = await queryRows<Column>(db.pool, `SELECT c.table_name, c.column_name, c.udt_name, c.is_nullable FROM information_schema.columns c
      JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' ORDER BY c.table_name, c.ordinal_position`);
    primaryKeys = await queryRows(db.pool, `SELECT tc.table_name, kcu.column_name FROM information_schema.table_constraints tc
      JOIN information_schema.key_column_usage kcu USING (constraint_schema, constraint_name)
      WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = 'public'`);
  });
  afterAll(async () => db.drop());

  it('every table has exactly one model (the migration log excepted)', () => {
    const tables = [...new Set(columns.map((c) => c.table_name))].filter((t) => t !== 'steward_migrations').sort();
    const modelled = models.map((m) => m.getTableName() as string).sort();
    expect(modelled).toEqual(tables);
  });

  it("every model's attributes are its table's columns, with the same types, nullability and primary key", () => {
    const problems: string[] = [];
    for (const model of models) {
      const table = model.getTableName() as string;
      const actual = new Map(columns.filter((c) => c.table_name === table).map((c) => [c.column_name, c]));
      const keys = new Set(primaryKeys.filter((k) => k.table_name === table).map((k) => k.column_name));
      const seen = new Set<string>();
      for (const [name, attribute] of Object.entries(model.getAttributes())) {
        const field = attribute.field ?? name;
        seen.add(field);
        const column = actual.get(field);
        if (!column) { problems.push(`${table}.${field}: model attribute ${name} has no column`); continue; }
        const udt = expectedUdt(attribute.type as unknown as { key: string });
        if (udt !== column.udt_name) problems.push(`${table}.${field}: model says ${udt}, column is ${column.udt_name}`);
        const nullable = attribute.allowNull !== false;
        if (nullable !== (column.is_nullable === 'YES')) problems.push(`${table}.${field}: model allowNull ${nullable}, column nullable ${column.is_nullable}`);
        if (Boolean(attribute.primaryKey) !== keys.has(field)) problems.push(`${table}.${field}: primary key differs`);
      }
      for (const column of actual.keys()) if (!seen.has(column)) problems.push(`${table}.${column}: column has no model attribute`);
    }
    expect(problems).toEqual([]);
  });

  it('every table with org_id has row-level security and its tenant policy', async () => {
    const tenantTables = [...new Set(columns.filter((c) => c.column_name === 'org_id').map((c) => c.table_name))];
    const secured = await queryRows<{ relname: string }>(db.pool, `SELECT c.relname FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relrowsecurity AND EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'tenant_isolation')`);
    const securedNames = new Set(secured.map((r) => r.relname));
    expect(tenantTables.filter((t) => !securedNames.has(t))).toEqual([]);
  });
});
