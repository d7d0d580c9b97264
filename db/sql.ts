/** Escapes LIKE wildcards so caller text matches literally (the pattern itself is still a bind parameter). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/**
 * A table or column name to write into SQL. Such names come from code (module declarations,
 * migrations), never from callers; checked anyway, since they cannot be bind parameters.
 */
export function sqlIdentifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a plain SQL identifier: ${name}`);
  return name;
}
