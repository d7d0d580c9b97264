import { StewardError } from '../../core/errors';

/**
 * The one placeholder syntax templates accept: `{{name}}` (spaces inside the braces allowed),
 * a name of lowercase letters, digits and underscores starting with a letter. Anything else that
 * opens with `{{` (sections, triple braces, filters, an unclosed pair) is a syntax error, so a
 * template never sends a half-substituted `{{#if}}` or a stray brace pair to a person.
 */
const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]{0,63})\s*\}\}/y;
export const VARIABLE_NAME = /^[a-z][a-z0-9_]{0,63}$/;

export interface SyntaxProblem {
  field: string;
  offset: number;
  message: string;
}

export type Piece = { text: string } | { variable: string };

export interface ParsedText {
  pieces: Piece[];
  variables: string[];
  problems: SyntaxProblem[];
}

/** Splits a text into literal pieces and placeholders, recording every malformed `{{`. */
export function parseTemplateText(text: string, field: string): ParsedText {
  const pieces: Piece[] = [];
  const variables: string[] = [];
  const problems: SyntaxProblem[] = [];
  let literal = '';
  let index = 0;
  while (index < text.length) {
    const open = text.indexOf('{{', index);
    if (open === -1) {
      literal += text.slice(index);
      break;
    }
    literal += text.slice(index, open);
    PLACEHOLDER.lastIndex = open;
    const match = PLACEHOLDER.exec(text);
    if (match && text[open + match[0].length] !== '}') {
      if (literal) pieces.push({ text: literal });
      literal = '';
      pieces.push({ variable: match[1] });
      if (!variables.includes(match[1])) variables.push(match[1]);
      index = open + match[0].length;
      continue;
    }
    const close = text.indexOf('}}', open + 2);
    const snippet = text.slice(open, close === -1 ? Math.min(text.length, open + 20) : Math.min(close + 3, open + 40));
    problems.push({
      field, offset: open,
      message: close === -1
        ? `"{{" at character ${open} is never closed`
        : `${JSON.stringify(snippet)} at character ${open} is not a variable: write {{name}} with lowercase letters, digits and underscores (no sections, filters or triple braces)`,
    });
    literal += text.slice(open, open + 2);
    index = open + 2;
  }
  if (literal) pieces.push({ text: literal });
  return { pieces, variables, problems };
}

/** HTML-escapes merge data for an email's HTML part, so a name can never inject markup (core/html.ts). */
export { escapeHtml } from '../../core/html';
import { escapeHtml } from '../../core/html';

/** A value counts as present only when it has something other than white space. */
export function missingVariables(names: readonly string[], values: Readonly<Record<string, string | undefined>>): string[] {
  return names.filter((name) => !values[name] || values[name]!.trim() === '');
}

/** Substitutes every placeholder; the caller has checked none is missing. */
export function renderPieces(pieces: readonly Piece[], values: Readonly<Record<string, string | undefined>>, escape = false): string {
  return pieces.map((piece) => {
    if ('text' in piece) return piece.text;
    const value = values[piece.variable];
    if (value === undefined) throw new Error(`variable ${piece.variable} was not checked before rendering`);
    return escape ? escapeHtml(value) : value;
  }).join('');
}

export function syntaxError(problems: readonly SyntaxProblem[]): StewardError {
  return new StewardError('validation_failed', `The template has ${problems.length === 1 ? 'a placeholder' : `${problems.length} placeholders`} it cannot read`, {
    hint: 'Variables are written {{name}}: lowercase letters, digits and underscores, starting with a letter.',
    issues: problems.map((problem) => ({ path: problem.field, message: problem.message })),
  });
}

export function missingVariablesError(missing: readonly string[]): StewardError {
  return new StewardError('validation_failed', `Missing template variables: ${missing.join(', ')}`, {
    hint: 'Pass a value for each in variables; a message is never sent with a placeholder left in it.',
    issues: missing.map((name) => ({ path: `variables.${name}`, message: 'required by the template and not given (or empty)' })),
    details: { missing: [...missing] },
  });
}
