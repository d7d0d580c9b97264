/**
 * The one HTML-escaping helper: every page, email body, widget shell and template engine output
 * escapes text with it (the template engine is configured to use it, see api/pages/render.ts), so
 * a name, a message or a URL someone else wrote can never become markup. Escapes the five
 * characters that matter in element content and in quoted attribute values.
 */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}
