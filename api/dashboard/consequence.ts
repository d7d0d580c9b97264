import type { AnyTool } from '../../modules/tool';

/**
 * What approving does, in words for the person deciding. A tool's description is written for a
 * model: its first sentence says what the tool does, and later ones steer the model (which
 * neighbour to use instead, which argument to pass). The person gets the first sentence, with
 * other tools named by their titles and asides about arguments left out, plus any following
 * sentences that still read as plain consequences, within a few lines.
 */
export function consequenceOf(tool: Pick<AnyTool, 'description' | 'title'>, titleOf: (name: string) => string | undefined): string {
  const [first = '', ...rest] = sentencesOf(tool.description);
  const lead = plain(first, titleOf);
  if (!lead) return `${tool.title}, with exactly these details.`;
  const kept = [lead];
  for (const sentence of rest) {
    if (speaksToModel(sentence) || kept.join(' ').length + sentence.length > MAX_LENGTH) break;
    kept.push(sentence);
  }
  return kept.join(' ');
}

const MAX_LENGTH = 320;
// A tool or argument name (snake_case, camelCase, a wildcard) or a JSON-ish brace: words for a model, not a person.
const IDENTIFIER = /\b[a-z]+(?:_[a-z0-9]+)+\b|\b[a-z]+[A-Z][A-Za-z]*\b|\*|[{}]/;
const STEERING = /^(use|call|prefer|pass|give|name|not for|preview first|see|for many|same as|only with)\b/i;

function sentencesOf(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=[A-Z])/).map((sentence) => sentence.trim()).filter(Boolean);
}

function speaksToModel(sentence: string): boolean {
  return IDENTIFIER.test(sentence) || STEERING.test(sentence);
}

/** The sentence with other tools named by title and parenthetical asides about arguments dropped; '' if it still speaks to a model. */
function plain(sentence: string, titleOf: (name: string) => string | undefined): string {
  const named = sentence.replace(/\b[a-z]+(?:_[a-z0-9]+)+\b/g, (name) => {
    const title = titleOf(name);
    return title ? `“${title}”` : name;
  });
  const withoutAsides = named.replace(/\s*\(([^()]*)\)/g, (aside, inner: string) => (IDENTIFIER.test(inner) ? '' : aside));
  const cleaned = withoutAsides.replace(/\s*\{[^{}]*\}/g, '').replace(/\s+([,.;:])/g, '$1').trim();
  if (!IDENTIFIER.test(cleaned)) return cleaned;
  // Keep the clause before the first that names an argument or tool, if that clause says something.
  const clause = cleaned.split(/[:;]\s|,\s/)[0]!.trim();
  return IDENTIFIER.test(clause) || clause.split(' ').length < 3 ? '' : `${clause.replace(/[,.;:]$/, '')}.`;
}
