/**
 * A byte count as a person says it, for the errors that refuse a size: "64 KB", "25 MB", "1.5 MB".
 * A limit set in binary units (64 * 1024) reads exactly in them; any other count is given in decimal
 * units to one place, which is how "1.5 MB" of 1,500,000 bytes is written in the docs.
 */
const BINARY: Array<[string, number]> = [['MB', 1024 * 1024], ['KB', 1024]];
const DECIMAL: Array<[string, number]> = [['MB', 1_000_000], ['KB', 1_000]];

export function sizeInWords(bytes: number): string {
  for (const [unit, size] of BINARY) if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  for (const [unit, size] of DECIMAL) if (bytes >= size) return `${Math.round((bytes / size) * 10) / 10} ${unit}`;
  return `${bytes} bytes`;
}
