/** Escapes LIKE wildcards so caller text matches literally (the pattern itself is still a bind parameter). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
