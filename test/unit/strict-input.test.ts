import { z } from 'zod';
import { allTools } from '../../modules/catalogue';
import { jsonSchemaOf } from '../../modules/schema';
import { strictInput } from '../../modules/strict-input';
import { defineTool } from '../../modules/tool';

/**
 * defineTool makes every object in a tool's input strict (modules/strict-input.ts): a tool declared
 * without `.strict()` anywhere refuses unknown keys at every depth, and its JSON Schema is the one
 * the same input declared strict by hand would have.
 */
const unrecognized = (result: { success: boolean; error?: z.ZodError }) =>
  result.error?.issues.filter((issue) => issue.code === 'unrecognized_keys').map((issue) => ({ path: issue.path, keys: (issue as { keys: string[] }).keys }));

describe('a tool declared with non-strict input objects', () => {
  const tool = defineTool({
    name: 'demo_record_thing', module: 'demo', title: 'Demo', description: 'Declared only by this test, never registered.',
    scope: 'people:write', effect: 'write', listed: false,
    input: z.object({
      name: z.string(),
      where: z.object({ place: z.string() }).optional(),
      people: z.array(z.object({ id: z.string() })).default([]),
    }),
    output: z.object({}),
    run: async () => ({}),
  });

  it('refuses an unknown key at the top level', () => {
    expect(unrecognized(tool.input.safeParse({ name: 'a', nmae: 'b' }))).toEqual([{ path: [], keys: ['nmae'] }]);
  });

  it('refuses an unknown key in a nested object and in an array of objects', () => {
    expect(unrecognized(tool.input.safeParse({ name: 'a', where: { place: 'x', room: 'y' } }))).toEqual([{ path: ['where'], keys: ['room'] }]);
    expect(unrecognized(tool.input.safeParse({ name: 'a', people: [{ id: '1' }, { id: '2', role: 'z' }] }))).toEqual([{ path: ['people', 1], keys: ['role'] }]);
  });

  it('still accepts what it declares, with its defaults', () => {
    expect(tool.input.parse({ name: 'a', where: { place: 'x' } })).toEqual({ name: 'a', where: { place: 'x' }, people: [] });
  });
});

describe('strictInput', () => {
  // Each schema with `.strict()` on its objects beside the same schema without: the copy must behave and read alike.
  const shapes: [string, (strict: boolean) => z.ZodType][] = [
    ['an object with a refinement and a description', (s) => z.object({ from: z.string().optional(), to: z.string().optional() }).apply((o) => (s ? o.strict() : o))
      .refine((v) => !(v.from && v.to && v.from > v.to), { message: 'from after to', path: ['from'] }).describe('A range')],
    ['a nullable object with a default', (s) => z.object({ a: z.number().int().min(1) }).apply((o) => (s ? o.strict() : o)).nullable().default(null).describe('Optional settings')],
    ['a record of objects', (s) => z.record(z.string().max(20), z.object({ n: z.number() }).apply((o) => (s ? o.strict() : o))).optional()],
    ['a union', (s) => z.union([z.string(), z.object({ id: z.string() }).apply((o) => (s ? o.strict() : o))])],
    ['a discriminated union', (s) => z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('a'), a: z.string() }).apply((o) => (s ? o.strict() : o)),
      z.object({ kind: z.literal('b'), b: z.number().default(2) }).apply((o) => (s ? o.strict() : o)),
    ])],
    ['a transform', (s) => z.object({ raw: z.string().trim() }).apply((o) => (s ? o.strict() : o)).transform((v) => v.raw.length)],
    ['a pipe into an object', (s) => z.string().transform((text) => JSON.parse(text) as unknown).pipe(z.object({ x: z.number() }).apply((o) => (s ? o.strict() : o)))],
  ];

  it.each(shapes)('%s: reads as the hand-strict schema in JSON Schema', (_name, build) => {
    const copy = strictInput(build(false));
    expect(JSON.stringify(jsonSchemaOf(copy, 'input'))).toBe(JSON.stringify(jsonSchemaOf(build(true), 'input')));
    expect(JSON.stringify(jsonSchemaOf(copy, 'output'))).toBe(JSON.stringify(jsonSchemaOf(build(true), 'output')));
  });

  it('keeps refinements, checks and defaults', () => {
    const [, range] = shapes[0];
    expect(strictInput(range(false)).safeParse({ from: 'b', to: 'a' }).error?.issues.map((issue) => issue.message)).toEqual(['from after to']);
    const [, settings] = shapes[1];
    expect(strictInput(settings(false)).parse(undefined)).toBeNull();
    expect(strictInput(settings(false)).safeParse({ a: 0 }).success).toBe(false);
    const [, union] = shapes[4];
    expect(strictInput(union(false)).parse({ kind: 'b' })).toEqual({ kind: 'b', b: 2 });
    expect(strictInput(union(false)).safeParse({ kind: 'b', c: 1 }).success).toBe(false);
    const [, piped] = shapes[6];
    expect(strictInput(piped(false)).safeParse('{"x":1,"y":2}').success).toBe(false);
    expect(strictInput(piped(false)).parse('{"x":1}')).toEqual({ x: 1 });
  });

  it('returns a schema with nothing to change itself', () => {
    const strict = z.object({ a: z.array(z.object({ b: z.string() }).strict()) }).strict();
    expect(strictInput(strict)).toBe(strict);
  });

  it('leaves an object that allows unknown keys on purpose', () => {
    const loose = z.object({ a: z.string() }).passthrough();
    expect(strictInput(loose).parse({ a: 'x', b: 1 })).toEqual({ a: 'x', b: 1 });
  });
});

/** Paths of objects in a JSON Schema that say nothing about keys they do not list. */
function openObjects(schema: unknown, path = ''): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => openObjects(item, `${path}[${i}]`));
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as Record<string, unknown>;
  const own = node.type === 'object' && node.additionalProperties === undefined ? [path || '(top)'] : [];
  return [...own, ...Object.entries(node).flatMap(([key, value]) => openObjects(value, `${path}.${key}`))];
}

it('every object in every tool input of the catalogue is closed', () => {
  const open = allTools().flatMap((tool) => openObjects(jsonSchemaOf(tool.input, 'input')).map((path) => `${tool.name} ${path}`));
  expect(open).toEqual([]);
});
