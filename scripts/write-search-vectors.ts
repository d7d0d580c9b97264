import { allTools } from '../modules/catalogue';
import { PHRASING_VECTORS_FILE, phrasingKey, quantise, readPhrasingVectors, writePhrasingVectors, type StoredVector } from '../modules/platform/phrasing-vectors';
import { meaningsOf } from '../modules/platform/search-meaning';
import { meaningPhrasingsOf } from '../modules/platform/tool-search';

/**
 * Part of `npm run schemas:write`: brings modules/platform/phrasing-vectors.bin in line with the catalogue.
 * Only phrasings without a vector are embedded (a new example takes milliseconds; the whole catalogue
 * takes a few minutes), and vectors no phrasing uses any more are dropped.
 */
const BATCH = 256;

async function main() {
  const stored = readPhrasingVectors();
  const texts = [...new Set(allTools().flatMap(meaningPhrasingsOf))];
  const next = new Map<string, StoredVector>();
  const missing: string[] = [];
  for (const text of texts) {
    const key = phrasingKey(text);
    const vector = stored.get(key);
    if (vector) next.set(key, vector);
    else missing.push(text);
  }
  for (let start = 0; start < missing.length; start += BATCH) {
    const batch = missing.slice(start, start + BATCH);
    const meanings = await meaningsOf(batch);
    if (!meanings) throw new Error('the sentence model could not be loaded: see the log line above');
    batch.forEach((text, i) => next.set(phrasingKey(text), quantise(meanings[i])));
    if (missing.length > BATCH) console.log(`embedded ${Math.min(start + BATCH, missing.length)} of ${missing.length}`);
  }
  const dropped = [...stored.keys()].filter((key) => !next.has(key)).length;
  if (missing.length === 0 && dropped === 0) return;
  writePhrasingVectors(next);
  console.log(`phrasing vectors: ${missing.length} embedded, ${dropped} dropped, ${next.size} in ${PHRASING_VECTORS_FILE}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
