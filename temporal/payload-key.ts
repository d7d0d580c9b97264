import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DATA_DIR } from '../db/config';

export const PAYLOAD_KEY_FILE = path.join(DATA_DIR, 'payload.key');

function parseKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error(`${source} must be 32 bytes, base64 or hex (e.g. \`openssl rand -base64 32\`)`);
  return key;
}

/**
 * The key every API and worker process of one deployment shares:
 * STEWARD_PAYLOAD_KEY, else the key file under .data/ (made on first use, so
 * `npm start` and processes beside it on one machine agree without setup).
 * Separate machines or containers must all be given the same STEWARD_PAYLOAD_KEY.
 */
export function resolvePayloadKey(): Buffer {
  const fromEnv = process.env.STEWARD_PAYLOAD_KEY;
  if (fromEnv) return parseKey(fromEnv, 'STEWARD_PAYLOAD_KEY');
  if (!fs.existsSync(PAYLOAD_KEY_FILE)) {
    fs.mkdirSync(path.dirname(PAYLOAD_KEY_FILE), { recursive: true });
    try {
      fs.writeFileSync(PAYLOAD_KEY_FILE, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process made it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return parseKey(fs.readFileSync(PAYLOAD_KEY_FILE, 'utf8'), PAYLOAD_KEY_FILE);
}
