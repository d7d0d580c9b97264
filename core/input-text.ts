import type { ErrorIssue } from './errors';

/**
 * Text Postgres cannot keep. A `text` column refuses the NUL character outright (the
 * call would fail as an internal error), and a lone UTF-16 surrogate has no UTF-8 form,
 * so the driver would silently store U+FFFD instead of what was sent. Every string a
 * caller sends (values and object keys, at any depth) is checked once, before any tool
 * runs, so no tool's schema has to remember to.
 */

// A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why Postgres could not store `text`, or undefined when it could. */
export function unstorableReason(text: string): string | undefined {
  const match = UNSTORABLE.exec(text);
  if (!match) return undefined;
  return match[0] === '\u0000'
    ? 'contains a NUL character (\\u0000), which cannot be stored'
    : 'contains an unpaired UTF-16 surrogate, which is not valid Unicode text';
}

/** Deeper than any tool input nests; a deeper value is refused rather than walked. */
const MAX_DEPTH = 32;

/**
 * Every string in `value` that Postgres could not store, as validation issues naming
 * its path (dotted, like the schema's issues; array items by index). An object key
 * that cannot be stored is reported at the key itself.
 */
export function unstorableTextIssues(value: unknown, maxIssues = 20): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  const walk = (current: unknown, path: string[]): void => {
    if (issues.length >= maxIssues) return;
    if (typeof current === 'string') {
      const reason = unstorableReason(current);
      if (reason) issues.push({ path: path.join('.') || '(arguments)', message: reason });
      return;
    }
    if (!current || typeof current !== 'object') return;
    if (path.length >= MAX_DEPTH) {
      issues.push({ path: path.join('.'), message: `nested deeper than ${MAX_DEPTH} levels` });
      return;
    }
    if (Array.isArray(current)) {
      current.forEach((item, index) => walk(item, [...path, String(index)]));
      return;
    }
    for (const [key, item] of Object.entries(current)) {
      const reason = unstorableReason(key);
      // The key itself is the caller's text and cannot be printed, so the issue names the object holding it.
      if (reason) issues.push({ path: [...path, '(key)'].join('.'), message: `a key ${reason}` });
      else walk(item, [...path, key]);
    }
  };
  walk(value, []);
  return issues;
}
