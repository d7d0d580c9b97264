/**
 * `npx tsx bench/compare.ts <before.json> <after.json>`: one Markdown table of two
 * `npm run bench` reports side by side (p50, p95, calls/s, errors and CPU per call per
 * backend, SDK state, path, tool and concurrency), with each run's core count and load average, for
 * bench/README.md and for change notes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Cell, Report } from './run';

function load(file: string): Report {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Report;
}

// Reports from before the SDK patch have no `sdk`: their SDK ran unpatched.
const sdkOf = (c: Partial<Pick<Cell, 'sdk'>>) => c.sdk ?? 'unpatched';
const keyOf = (c: Pick<Cell, 'backend' | 'path' | 'tool' | 'concurrency'> & Partial<Pick<Cell, 'sdk'>>) => `${c.backend}|${sdkOf(c)}|${c.path}|${c.tool}|${c.concurrency}`;

export function compareTable(before: Report, after: Report, names: [string, string] = ['before', 'after']): string {
  const describe = (name: string, r: Report) => `${name}: ${r.timestamp.slice(0, 16).replace('T', ' ')} UTC, ${r.machine.cpus} CPUs, load average ${r.machine.loadAverageBefore.join(' / ')} at start, ${r.machine.loadAverageAfter.join(' / ')} at end`;
  const cellsOf = (r: Report) => new Map(r.backends.flatMap((b) => b.cells).map((c) => [keyOf(c), c]));
  const old = cellsOf(before);
  // A before run of one SDK state (the unpatched baseline) is compared with every state of the after run.
  const beforeSdks = new Set(before.backends.flatMap((b) => b.cells).map(sdkOf));
  const withoutSdk = (c: Pick<Cell, 'backend' | 'path' | 'tool' | 'concurrency'>) => `${c.backend}|${c.path}|${c.tool}|${c.concurrency}`;
  const oldAnySdk = beforeSdks.size === 1 ? new Map(before.backends.flatMap((b) => b.cells).map((c) => [withoutSdk(c), c])) : new Map<string, Cell>();
  const lines = [
    `Each cell: ${names[0]} → ${names[1]}${beforeSdks.size === 1 ? ` (the before run's SDK was ${[...beforeSdks][0]}; each after row is compared with it)` : ''}.`,
    '',
    `- ${describe(names[0], before)}`,
    `- ${describe(names[1], after)}`,
    '',
    '| Postgres | SDK | path | tool | concurrency | p50 ms | p95 ms | calls/s | errors | CPU ms/call |',
    '|---|---|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const cell of after.backends.flatMap((b) => b.cells)) {
    const prior = old.get(keyOf(cell)) ?? oldAnySdk.get(withoutSdk(cell));
    const pair = (a: number | undefined, b: number, digits: number) => `${a === undefined ? '–' : a.toFixed(digits)} → ${b.toFixed(digits)}`;
    const cpu = cell.cpu ? pair(prior?.cpu?.totalMs, cell.cpu.totalMs, 1) : '';
    lines.push(`| ${cell.backend} | ${sdkOf(cell)} | ${cell.path} | ${cell.tool} | ${cell.concurrency} | ${pair(prior?.latency.p50, cell.latency.p50, 1)} | ${pair(prior?.latency.p95, cell.latency.p95, 1)} | ${pair(prior?.callsPerSecond, cell.callsPerSecond, 1)} | ${prior ? prior.errors : '–'} → ${cell.errors} | ${cpu} |`);
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
