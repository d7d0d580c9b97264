import { z } from 'zod';

/**
 * A tool's input with every object in it strict (unknown keys refused), however deeply it sits:
 * inside optional, nullable, default and other wrappers, arrays, records, unions, discriminated
 * unions, intersections, tuples and pipes (transforms). defineTool applies it, so a tool never
 * silently drops a misspelt argument, and its declaration need not say `.strict()` on each object.
 *
 * An object that already decides its unknown keys (`.strict()`, `.passthrough()`, `.catchall(...)`)
 * is left as it is. Everything else a schema carries is kept: its checks and refinements, defaults,
 * and its metadata (description), so the JSON Schema agents see does not change. A schema with no
 * object to change is returned itself, not a copy.
 */
export function strictInput<T extends z.ZodType>(schema: T): T {
  return strictCopy(schema) as T;
}

type Def = z.core.$ZodTypeDef & Record<string, unknown>;

// One copy per schema, so a schema used twice in an input (or by two tools) stays one schema.
const copies = new WeakMap<z.core.$ZodType, z.core.$ZodType>();

function strictCopy(schema: z.core.$ZodType): z.core.$ZodType {
  let copy = copies.get(schema);
  if (!copy) {
    copy = rebuilt(schema);
    copies.set(schema, copy);
  }
  return copy;
}

function rebuilt(schema: z.core.$ZodType): z.core.$ZodType {
  const def = schema._zod.def as Def;
  const changes = childChanges(def);
  if (def.type === 'object' && def.catchall === undefined) changes.catchall = z.never();
  if (Object.keys(changes).length === 0) return schema;
  // A copy made from a changed definition: the same class, checks and refinements, with the changed parts swapped in.
  const copy = z.core.clone(schema, z.core.util.mergeDefs(def, changes) as z.core.$ZodTypeDef);
  keepMetadata(schema, copy);
  return copy;
}

/** Where each kind of schema keeps the schemas inside it. */
const SINGLE_CHILDREN: Record<string, readonly string[]> = {
  optional: ['innerType'], nullable: ['innerType'], default: ['innerType'], prefault: ['innerType'], catch: ['innerType'],
  nonoptional: ['innerType'], readonly: ['innerType'], success: ['innerType'], promise: ['innerType'],
  array: ['element'], set: ['valueType'], map: ['keyType', 'valueType'], record: ['keyType', 'valueType'],
  intersection: ['left', 'right'], pipe: ['in', 'out'], tuple: ['rest'], object: ['catchall'],
};
const LIST_CHILDREN: Record<string, string> = { union: 'options', tuple: 'items' };

/** The definition's parts that hold a schema which changes, each with its strict copy. */
function childChanges(def: Def): Record<string, unknown> {
  // A lazy schema may refer to itself; copying it would need its getter, so tools do not use one.
  if (def.type === 'lazy') throw new Error('A tool input may not use z.lazy: its objects could not be made strict');
  const changes: Record<string, unknown> = {};
  for (const key of SINGLE_CHILDREN[def.type] ?? []) {
    const child = def[key] as z.core.$ZodType | undefined;
    if (child && strictCopy(child) !== child) changes[key] = strictCopy(child);
  }
  const listKey = LIST_CHILDREN[def.type];
  if (listKey) {
    const list = def[listKey] as readonly z.core.$ZodType[];
    const copied = list.map(strictCopy);
    if (copied.some((child, i) => child !== list[i])) changes[listKey] = copied;
  }
  if (def.type === 'object') {
    const shape = def.shape as Record<string, z.core.$ZodType>;
    const copied = Object.fromEntries(Object.entries(shape).map(([key, child]) => [key, strictCopy(child)]));
    if (Object.keys(shape).some((key) => copied[key] !== shape[key])) changes.shape = copied;
  }
  return changes;
}

/** A copy made from a definition is not linked to its original, so it gets the original's description and other metadata itself. */
function keepMetadata(original: z.core.$ZodType, copy: z.core.$ZodType): void {
  const meta = z.globalRegistry.get(original);
  if (!meta) return;
  // An id names one schema in the registry; a tool input that needs one would have to be declared strict itself.
  if ('id' in meta) throw new Error(`A tool input schema with metadata id ${String(meta.id)} must be declared strict`);
  z.globalRegistry.add(copy, meta);
}
