/**
 * `npx tsx bench/compare.ts <before.json> <after.json>`: one Markdown table of two
 * `npm run bench` reports side by side (p50, p95, calls/s and errors per backend,
 * path, tool and concurrency), with each run's core count and load average, for
 * bench/README.md and for change notes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Cell, Report } from './run';

function load(file: string): Report {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Report;
}

const keyOf = (c: Pick<Cell, 'backend' | 'path' | 'tool' | 'concurrency'>) => `${c.backend}|${c.path}|${c.tool}|${c.concurrency}`;

export function compareTable(before: Report, after: Report, names: [string, string] = ['before', 'after']): string {
  const describe = (name: string, r: Report) => `${name}: ${r.timestamp.slice(0, 16).replace('T', ' ')} UTC, ${r.machine.cpus} CPUs, load average ${r.machine.loadAverageBefore.join(' / ')} at start, ${r.machine.loadAverageAfter.join(' / ')} at end`;
  const cellsOf = (r: Report) => new Map(r.backends.flatMap((b) => b.cells).map((c) => [keyOf(c), c]));
  const old = cellsOf(before);
  const lines = [
    `Each cell: ${names[0]} → ${names[1]}.`,
    '',
    `- ${describe(names[0], before)}`,
    `- ${describe(names[1], after)}`,
    '',
    '| Postgres | path | tool | concurrency | p50 ms | p95 ms | calls/s | errors |',
    '|---|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const cell of after.backends.flatMap((b) => b.cells)) {
    const prior = old.get(keyOf(cell));
    const pair = (a: number | undefined, b: number, digits: number) => `${a === undefined ? '–' : a.toFixed(digits)} → ${b.toFixed(digits)}`;
    lines.push(`| ${cell.backend} | ${cell.path} | ${cell.tool} | ${cell.concurrency} | ${pair(prior?.latency.p50, cell.latency.p50, 1)} | ${pair(prior?.latency.p95, cell.latency.p95, 1)} | ${pair(prior?.callsPerSecond, cell.callsPerSecond, 1)} | ${prior ? prior.errors : '–'} → ${cell.errors} |`);
  }
  return lines.join('\n');
}

if (require.main === module) {
  const [beforeFile, afterFile] = process.argv.slice(2);
  if (!beforeFile || !afterFile) {
    console.error('usage: npx tsx bench/compare.ts <before.json> <after.json>');
    process.exit(2);
  }
  console.log(compareTable(load(beforeFile), load(afterFile), [path.basename(beforeFile, '.json'), path.basename(afterFile, '.json')]));
}
