import path from 'node:path';
import { Eta } from 'eta';
import { escapeHtml } from '../../core/html';

/**
 * Server-rendered pages people read (the front page, /connect, the staff dashboard) come from
 * Eta templates in api/pages/views/ (copied beside the compiled code by `npm run build`).
 * `<%= … %>` escapes with the one escaping helper (core/html.ts); `<%~ … %>` inserts markup that
 * the template's own partials made. Templates are cached once compiled, outside development.
 */
const eta = new Eta({
  views: path.join(__dirname, 'views'),
  autoEscape: true,
  escapeFunction: escapeHtml,
  cache: process.env.NODE_ENV === 'production',
  autoTrim: false,
});

/** The HTML of `views/<name>.eta` with `data` as `it`. */
export function renderPage(name: string, data: Record<string, unknown>): string {
  return eta.render(`./${name}`, data);
}

/** A template given as text, rendered by the same configured engine (tests use it). */
export function renderTemplateString(template: string, data: Record<string, unknown>): string {
  return eta.renderString(template, data);
}
