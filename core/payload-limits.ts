import { sizeInWords } from './sizes';

/**
 * Sizes that keep every Temporal payload well inside the server's limits. Temporal
 * refuses a single payload over 2 MiB (its default blob limit), and the SDK then fails
 * the workflow task and retries it: a workflow whose task cannot complete spins until
 * its execution timeout. So nothing that could come near that size may reach a workflow.
 */

/** What the server refuses; the margin below covers encryption, metadata and the rest of the plan. */
export const TEMPORAL_BLOB_LIMIT_BYTES = 2 * 1024 * 1024;

/**
 * The largest tool arguments (as JSON, UTF-8) a call may carry into its workflow. The
 * largest legitimate input, an import's CSV of at most 900,000 characters, fits with room
 * for JSON escaping; the API refuses anything larger as payload_too_large before starting.
 */
export const MAX_ARGS_BYTES = 1_500_000;

/**
 * The largest request body the API reads: the largest arguments with room for what surrounds them
 * (the tool's name, the JSON-RPC envelope), so every call within MAX_ARGS_BYTES reaches validation
 * and anything larger is answered payload_too_large naming the limit, on every surface.
 */
export const MAX_BODY_BYTES = MAX_ARGS_BYTES + 100_000;

/** A limit both exactly and as people say it: 1,600,000 bytes (1.6 MB). */
export function describeBytes(bytes: number): string {
  return `${bytes.toLocaleString('en-GB')} bytes (${sizeInWords(bytes)})`;
}

/** The largest tool result (as JSON, UTF-8) a call may hand back through its workflow. */
export const MAX_RESULT_BYTES = 1_500_000;

/** UTF-8 length of a string, counted without Node built-ins (core/ is also bundled into workflows). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** Whether a value, as the JSON Temporal's converter writes, fits in `limit` UTF-8 bytes. */
export function jsonFits(value: unknown, limit: number): boolean {
  const json = JSON.stringify(value) ?? '';
  // A UTF-16 unit takes one to three UTF-8 bytes, so most sizes are settled without counting.
  if (json.length * 3 <= limit) return true;
  if (json.length > limit) return false;
  return utf8Length(json) <= limit;
}
