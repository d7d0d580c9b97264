import type { Request, Response } from 'express';

/**
 * `__Host-` makes the browser insist on Secure, Path=/ and no Domain, so no
 * sibling host can plant or read it. Browsers treat http://127.0.0.1 and
 * http://localhost as secure contexts, so it also works on a developer's machine.
 */
export const SESSION_COOKIE = '__Host-steward_session';

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

export function sessionTokenOf(req: Request): string | undefined {
  const value = readCookie(req, SESSION_COOKIE);
  return value && /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
}

/** SameSite=Lax: sent when the assistant navigates the person here, never with a cross-site POST. */
export function setSessionCookie(res: Response, token: string, maxAgeSeconds: number): void {
  res.append('Set-Cookie', `${SESSION_COOKIE}=${token}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}`);
}

/** Signing out: the browser drops the cookie (the session row is ended separately). */
export function clearSessionCookie(res: Response): void {
  res.append('Set-Cookie', `${SESSION_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`);
}
