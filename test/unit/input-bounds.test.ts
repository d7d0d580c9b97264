import { z } from 'zod';
import { allRoutes, allTools } from '../../modules/catalogue';
import { inputSchemaOf, type JsonSchema } from '../../modules/schema';
import { bulkOf, cursorInput, idOrNameInput } from '../../modules/kit';

/**
 * Every input a caller can send is bounded in the schema itself, so an oversized value
 * is refused by validation before any workflow starts: every string has a length limit,
 * every array an item limit, every number a range narrower than "any safe integer" and
 * every record a key limit. Walked over the JSON Schema every surface publishes, through
 * nested objects, arrays, records and unions.
 */

/**
 * Inputs left unbounded on purpose, each for a stated reason. Keep this short: a new entry
 * needs a limit enforced somewhere else before the call reaches a workflow.
 */
const ALLOWED_UNBOUNDED: Record<string, string> = {
  // The inner tool's arguments: validated by that tool's own (bounded) schema before anything runs,
  // and as a whole by the API's size limit (MAX_ARGS_BYTES).
  'platform_execute_workflow_tool $.arguments': 'validated by the named tool\'s schema',
  'platform_execute_workflow_tool $.arguments{}': 'validated by the named tool\'s schema',
};

/** String formats whose schema carries an anchored pattern of fixed length, which bounds it as maxLength would. */
const FIXED_LENGTH_FORMATS = new Set(['uuid', 'date']);

const SAFE = Number.MAX_SAFE_INTEGER;
const isBound = (value: unknown) => typeof value === 'number' && Math.abs(value) < SAFE;

function typesOf(schema: JsonSchema): string[] {
  const type = schema.type;
  return Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
}

/** Paths (`$.a.b[]`, `$.rec{}`, `|n` for the n-th union branch) whose value is unbounded, with what is missing. */
function unboundedInputs(schema: JsonSchema, path = '$'): string[] {
  const found: string[] = [];
  const types = typesOf(schema);
  const fixedValue = Array.isArray(schema.enum) || 'const' in schema;
  if (types.includes('string') && !fixedValue && schema.maxLength === undefined) {
    const fixedFormat = FIXED_LENGTH_FORMATS.has(String(schema.format)) && typeof schema.pattern === 'string'
      && String(schema.pattern).startsWith('^') && String(schema.pattern).endsWith('$');
    if (!fixedFormat) found.push(`${path}: string without maxLength`);
  }
  if (types.includes('array') && schema.maxItems === undefined) found.push(`${path}: array without maxItems`);
  if ((types.includes('number') || types.includes('integer')) && !fixedValue) {
    if (!isBound(schema.maximum ?? schema.exclusiveMaximum) || !isBound(schema.minimum ?? schema.exclusiveMinimum)) {
      found.push(`${path}: number without a range`);
    }
  }
  const additional = schema.additionalProperties;
  if (types.includes('object') && additional && typeof additional === 'object') {
    const names = schema.propertyNames as JsonSchema | undefined;
    if (schema.maxProperties === undefined && !Array.isArray(names?.enum)) found.push(`${path}: record without maxProperties`);
    if (names) found.push(...unboundedInputs(names, `${path}{key}`));
    found.push(...unboundedInputs(additional as JsonSchema, `${path}{}`));
  }
  // A schema that says nothing at all ({}) accepts any value of any size.
  if (types.length === 0 && !fixedValue && !schema.anyOf && !schema.oneOf && !schema.allOf && !schema.$ref && !schema.not) {
    found.push(`${path}: any value`);
  }
  for (const [key, child] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) found.push(...unboundedInputs(child, `${path}.${key}`));
  if (schema.items && typeof schema.items === 'object') {
    const items = Array.isArray(schema.items) ? (schema.items as JsonSchema[]) : [schema.items as JsonSchema];
    items.forEach((item) => found.push(...unboundedInputs(item, `${path}[]`)));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    ((schema[key] ?? []) as JsonSchema[]).forEach((branch, index) => found.push(...unboundedInputs(branch, `${path}|${index}`)));
  }
  return found;
}

/**
 * An invoke bridge's body is handed to the route it names, which parses it with its own schema
 * (bounded: see the route test below) before anything runs; the bridge bounds the field count.
 */
const ROUTE_BODY_VALUES = /^[a-z_]+_invoke_(dashboard_)?api_write \$\.body\{\}$/;

function unexplained(tool: string, schema: JsonSchema): string[] {
  return unboundedInputs(schema).filter((finding) => {
    const where = `${tool} ${finding.slice(0, finding.indexOf(':'))}`;
    return !(where in ALLOWED_UNBOUNDED) && !ROUTE_BODY_VALUES.test(where);
  });
}

describe('every tool input is bounded', () => {
  it.each(allTools().map((tool) => [tool.name, tool] as const))('%s', (name, tool) => {
    expect(unexplained(name, inputSchemaOf(tool))).toEqual([]);
  });

  it('the allow-list names only inputs that exist and are unbounded', () => {
    const all = new Set(allTools().flatMap((tool) => unboundedInputs(inputSchemaOf(tool)).map((f) => `${tool.name} ${f.slice(0, f.indexOf(':'))}`)));
    for (const entry of Object.keys(ALLOWED_UNBOUNDED)) expect(all).toContain(entry);
  });
});

describe('every dashboard route input is bounded', () => {
  it.each(allRoutes().map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_key, route) => {
    for (const part of ['params', 'query', 'body'] as const) {
      expect(unboundedInputs(z.toJSONSchema(route[part], { target: 'draft-7', io: 'input' }) as JsonSchema, `$.${part}`)).toEqual([]);
    }
  });
});

describe('the walk finds what it must', () => {
  const walk = (schema: z.ZodType) => unboundedInputs(z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as JsonSchema);

  it('flags an unbounded string, array, number and record at any depth, in unions too', () => {
    const findings = walk(z.object({
      s: z.string(),
      nested: z.object({ list: z.array(z.string().max(5)) }),
      n: z.number().int(),
      rec: z.record(z.string().max(5), z.string().max(5)),
      either: z.union([z.string().max(5), z.number()]).optional(),
      items: z.array(z.object({ deep: z.string() })).max(3),
      anything: z.unknown(),
    }));
    expect(findings.map((f) => f.slice(0, f.indexOf(':')))).toEqual([
      '$.s', '$.nested.list', '$.n', '$.rec', '$.either|1', '$.items[].deep', '$.anything',
    ]);
  });

  it('accepts bounded ones, enums, uuids and ISO dates', () => {
    expect(walk(z.object({
      s: z.string().max(5), list: z.array(z.enum(['a', 'b'])).max(2), n: z.number().min(0).max(9), id: z.uuid(), day: z.iso.date(),
      flag: z.boolean(), fixed: z.literal('x'), keyed: z.record(z.enum(['a', 'b']), z.boolean()),
    }))).toEqual([]);
  });

  it('the kit\'s shared input shapes are bounded', () => {
    expect(walk(z.object({ ...cursorInput, ...idOrNameInput('thing'), items: bulkOf(z.uuid(), 50) }))).toEqual([]);
  });
});
