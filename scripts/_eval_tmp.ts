import { evaluateCases, readCases } from '../bench/search-eval';
const file = process.argv[2];
const r = evaluateCases(file, readCases(file));
console.log(`${file}: n=${r.counted} recall@5=${r.recallAt5} mrr=${r.mrr}`);
if (process.argv[3] === 'v') for (const c of r.cases) if (c.recallAt5 < 1 || (c.firstRank ?? 99) > 1) console.log(`  [${c.firstRank}] ${c.q} => ${c.expect.join('|')} :: ${c.top5.slice(0,3).join(', ')}`);
