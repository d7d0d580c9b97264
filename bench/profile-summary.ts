/**
 * `npx tsx bench/profile-summary.ts <file.cpuprofile> [calls]`: where a CPU profile's time went,
 * as self time per function and per package or folder (node_modules/<package>, or the project's
 * own top folder), in milliseconds and, given the number of calls the profile covered, per call.
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** node_modules/<package> (scoped included), a project folder, or node's own internals. */
function placeOf(url: string): string {
  if (!url) return '(native / idle)';
  const inModules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (inModules) return inModules[1];
  if (url.startsWith('node:')) return 'node internals';
  const own = url.match(/\/work\/[^/]+\/([^/]+)\//) ?? url.match(/\/([^/]+)\/[^/]+$/);
  return own ? `project: ${own[1]}` : url;
}

export function summarise(profile: Profile, calls: number, top = 25): string {
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)' || functionName === '(garbage collector)') {
      byPlace.set(functionName, (byPlace.get(functionName) ?? 0) + us);
      if (functionName !== '(idle)') busy += us;
      continue;
    }
    busy += us;
    const fn = `${functionName || '(anonymous)'} ${url.replace(/.*node_modules\//, '')}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byPlace.set(placeOf(url), (byPlace.get(placeOf(url)) ?? 0) + us);
  }
  const row = (name: string, us: number) => `| ${name} | ${(us / 1000).toFixed(1)} | ${(us / 1000 / calls).toFixed(3)} |`;
  const sorted = (map: Map<string, number>) => [...map.entries()].sort((a, b) => b[1] - a[1]);
  return [
    `busy ${(busy / 1000).toFixed(1)} ms over ${calls} calls: ${(busy / 1000 / calls).toFixed(2)} ms per call`,
    '', '| where | ms | ms per call |', '|---|---:|---:|',
    ...sorted(byPlace).map(([name, us]) => row(name, us)),
    '', '| function (self time) | ms | ms per call |', '|---|---:|---:|',
    ...sorted(byFunction).slice(0, top).map(([name, us]) => row(name, us)),
  ].join('\n');
}

if (require.main === module) {
  const [file, calls] = process.argv.slice(2);
  if (!file) {
    console.error('usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [calls]');
    process.exit(2);
  }
  console.log(summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile, Number(calls ?? 1)));
}
