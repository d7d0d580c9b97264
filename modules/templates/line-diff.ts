import { diffLines } from 'diff';

/** Line differences between two texts, as runs of same / added / removed lines. */
export interface LineChange {
  kind: 'same' | 'added' | 'removed';
  lines: string[];
}

// Both texts end in a newline before comparing, so a last line is not "changed" only for lacking one.
const terminated = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);

export function diffTextLines(from: string, to: string): LineChange[] {
  return diffLines(terminated(from), terminated(to)).map((part) => ({
    kind: part.added ? 'added' as const : part.removed ? 'removed' as const : 'same' as const,
    lines: part.value.replace(/\n$/, '').split('\n'),
  }));
}
