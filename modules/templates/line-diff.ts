/**
 * Line differences between two texts, as runs of same / added / removed lines.
 * (A plain LCS over lines; template bodies are small.)
 */
export interface LineChange {
  kind: 'same' | 'added' | 'removed';
  lines: string[];
}

export function diffTextLines(from: string, to: string): LineChange[] {
  const a = from === '' ? [] : from.split('\n');
  const b = to === '' ? [] : to.split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const changes: LineChange[] = [];
  const push = (kind: LineChange['kind'], line: string) => {
    const last = changes[changes.length - 1];
    if (last?.kind === kind) last.lines.push(line);
    else changes.push({ kind, lines: [line] });
  };
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) { push('same', a[i]); i += 1; j += 1; } else if (lcs[i + 1][j] >= lcs[i][j + 1]) { push('removed', a[i]); i += 1; } else { push('added', b[j]); j += 1; }
  }
  while (i < a.length) { push('removed', a[i]); i += 1; }
  while (j < b.length) { push('added', b[j]); j += 1; }
  return changes;
}
