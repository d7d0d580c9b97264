import { evaluateCases, readCases, splitParaphrases, TOOL_SEARCH_PARAPHRASE_FILE } from '../bench/search-eval';
const { tuning, heldOut } = splitParaphrases(readCases(TOOL_SEARCH_PARAPHRASE_FILE));
const fresh = readCases('/tmp/search/fresh.jsonl');
const f = (r: { recallAt5: number; mrr: number }) => `${r.recallAt5.toFixed(3)}/${r.mrr.toFixed(3)}`;
console.log(`tuning ${f(evaluateCases('t', tuning))} held ${f(evaluateCases('h', heldOut))} fresh ${f(evaluateCases('f', fresh))}`);
