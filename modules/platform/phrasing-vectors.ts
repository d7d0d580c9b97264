import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The meaning of each tool phrasing (a title, an example request, a description's first sentence) as a
 * sentence embedding, computed ahead of time by `npm run schemas:write` and kept beside the code, so no
 * process spends minutes embedding the catalogue when it starts. Each vector is unit length, stored as
 * 8-bit integers with one scale (4× smaller than floats; ranking measured unchanged).
 *
 * File layout (little-endian): "STWV", u16 dimensions, u32 count, then per phrasing its key (the first 8
 * bytes of the text's SHA-256), a float32 scale and `dimensions` int8 values. Records are sorted by key,
 * so a rewrite after a small catalogue change is a small diff.
 */
export const PHRASING_VECTORS_FILE = path.join(__dirname, 'phrasing-vectors.bin');

const MAGIC = 'STWV';
const HEADER_BYTES = 4 + 2 + 4;
const KEY_BYTES = 8;

export interface StoredVector {
  scale: number;
  values: Int8Array;
}

export type PhrasingVectors = ReadonlyMap<string, StoredVector>;

/** The key a phrasing's vector is stored under: a text changes, its key changes, its vector is recomputed. */
export function phrasingKey(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex').slice(0, KEY_BYTES * 2);
}

/** A unit vector as int8 values and the scale that turns them back (value × scale). */
export function quantise(vector: ArrayLike<number>): StoredVector {
  let largest = 0;
  for (let i = 0; i < vector.length; i++) largest = Math.max(largest, Math.abs(vector[i]));
  const scale = largest === 0 ? 1 : largest / 127;
  const values = new Int8Array(vector.length);
  for (let i = 0; i < vector.length; i++) values[i] = Math.round(vector[i] / scale);
  return { scale, values };
}

/** The dot product of a query (float, unit length) with a stored vector: their cosine similarity. */
export function similarity(query: Float32Array, stored: StoredVector): number {
  let sum = 0;
  for (let i = 0; i < query.length; i++) sum += query[i] * stored.values[i];
  return sum * stored.scale;
}

export function readPhrasingVectors(file: string = PHRASING_VECTORS_FILE): Map<string, StoredVector> {
  const vectors = new Map<string, StoredVector>();
  if (!fs.existsSync(file)) return vectors;
  const bytes = fs.readFileSync(file);
  if (bytes.toString('latin1', 0, 4) !== MAGIC) throw new Error(`${file} is not a phrasing vector file`);
  const dimensions = bytes.readUInt16LE(4);
  const count = bytes.readUInt32LE(6);
  const recordBytes = KEY_BYTES + 4 + dimensions;
  if (bytes.length !== HEADER_BYTES + count * recordBytes) throw new Error(`${file} is truncated: expected ${count} vectors of ${dimensions}`);
  for (let record = 0, offset = HEADER_BYTES; record < count; record++, offset += recordBytes) {
    const key = bytes.toString('hex', offset, offset + KEY_BYTES);
    const scale = bytes.readFloatLE(offset + KEY_BYTES);
    const values = new Int8Array(bytes.buffer, bytes.byteOffset + offset + KEY_BYTES + 4, dimensions);
    vectors.set(key, { scale, values });
  }
  return vectors;
}

export function writePhrasingVectors(vectors: PhrasingVectors, file: string = PHRASING_VECTORS_FILE): void {
  const entries = [...vectors.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const dimensions = entries[0]?.[1].values.length ?? 0;
  const recordBytes = KEY_BYTES + 4 + dimensions;
  const bytes = Buffer.alloc(HEADER_BYTES + entries.length * recordBytes);
  bytes.write(MAGIC, 0, 'latin1');
  bytes.writeUInt16LE(dimensions, 4);
  bytes.writeUInt32LE(entries.length, 6);
  entries.forEach(([key, vector], record) => {
    if (vector.values.length !== dimensions) throw new Error(`vector ${key} has ${vector.values.length} dimensions, not ${dimensions}`);
    const offset = HEADER_BYTES + record * recordBytes;
    bytes.write(key, offset, 'hex');
    bytes.writeFloatLE(vector.scale, offset + KEY_BYTES);
    Buffer.from(vector.values.buffer, vector.values.byteOffset, dimensions).copy(bytes, offset + KEY_BYTES + 4);
  });
  fs.writeFileSync(file, bytes);
}

let bundled: PhrasingVectors | undefined;

/** The vectors shipped with the code, read once per process. */
export function bundledPhrasingVectors(): PhrasingVectors {
  return bundled ??= readPhrasingVectors();
}
