import { redirectLog } from '../../core/log';
import { meaningOf } from '../../modules/platform/search-meaning';

// On a busy machine the model's WebAssembly backend can take longer to start than its weights take to
// read. Here it is made to, deterministically: every instantiation in this file's context waits first.
const instantiate = WebAssembly.instantiate.bind(WebAssembly) as (...args: unknown[]) => Promise<unknown>;
const BACKEND_DELAY_MS = 1500;
(WebAssembly as { instantiate: unknown }).instantiate = async (...args: unknown[]) => {
  await new Promise((resolve) => setTimeout(resolve, BACKEND_DELAY_MS));
  return instantiate(...args);
};

describe('loading the sentence model', () => {
  it('waits for a slow backend, and leaves no listener on the process', async () => {
    const uncaught = process.listenerCount('uncaughtException');
    const unhandled = process.listenerCount('unhandledRejection');
    const lines: string[] = [];
    const restore = redirectLog((line) => lines.push(line));
    let meaning: Float32Array | undefined;
    try {
      meaning = await meaningOf('who is on the flowers this week');
    } finally {
      restore();
    }
    expect(lines.filter((line) => line.includes('tool_search.meaning_unavailable'))).toEqual([]);
    expect(meaning).toBeInstanceOf(Float32Array);
    expect(meaning).toHaveLength(512);
    // The runtime adds a listener to each that rethrows; left on, it would decide what every unhandled error does.
    expect(process.listenerCount('uncaughtException')).toBe(uncaught);
    expect(process.listenerCount('unhandledRejection')).toBe(unhandled);
  });
});
