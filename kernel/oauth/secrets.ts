import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hashSecret } from '../api-keys';

/**
 * How long each OAuth artefact lives. Access tokens are short because they are
 * checked by signature; codes only have to survive one redirect.
 */
export const LIFETIMES = {
  accessTokenSeconds: 15 * 60,
  codeSeconds: 60,
  refreshTokenSeconds: 30 * 24 * 60 * 60,
  authorizationRequestSeconds: 10 * 60,
  sessionSeconds: 60 * 60,
} as const;

export const REFRESH_TOKEN_PREFIX = 'srt_';

/** 256 random bits, URL-safe. */
export function newSecret(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}

export { hashSecret };

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
