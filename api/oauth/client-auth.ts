import express, { type NextFunction, type Request, type Response } from 'express';
import { hashSecret } from '../../kernel/oauth/secrets';

function oauthError(res: Response, status: number, error: string, description: string): void {
  res.status(status).json({ error, error_description: description });
}

/** client_secret_basic: the credentials are form-encoded before being base64-encoded (RFC 6749 2.3.1). */
function basicCredentials(header: string): { id: string; secret: string } | null {
  try {
    const decoded = Buffer.from(header.slice('Basic '.length).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return null;
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/** The challenge RFC 6749 5.2 asks for when a client that authenticated through the Authorization header fails. */
export const BASIC_CHALLENGE = 'Basic realm="steward", charset="UTF-8"';

/**
 * The SDK answers every failed client authentication 400. That is right for credentials in the body,
 * but a client that used the Authorization header must get 401 with a Basic challenge (RFC 6749 5.2),
 * whichever check failed (unknown client_id, wrong or expired secret), so its invalid_client answers
 * are upgraded on the way out rather than each check being repeated here.
 */
function answerBasicFailuresWith401(res: Response): void {
  const json = res.json.bind(res);
  res.json = (body?: unknown) => {
    if (body && typeof body === 'object' && (body as { error?: unknown }).error === 'invalid_client') {
      res.status(401).set('WWW-Authenticate', BASIC_CHALLENGE);
    }
    return json(body);
  };
}

/**
 * Runs before the SDK's token and revocation handlers. It accepts
 * client_secret_basic as well as client_secret_post, and replaces the presented
 * secret by its sha-256, because the store only knows the hash (the SDK compares
 * what the store returns with what the request carries). Responses that carry
 * tokens or errors about them are never cached.
 */
export function clientAuthentication() {
  return [
    express.urlencoded({ extended: false, limit: '16kb' }),
    (req: Request, res: Response, next: NextFunction): void => {
      res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
      if (!req.body || typeof req.body !== 'object' || Array.isArray(req.body)) req.body = {};
      const body = req.body as Record<string, unknown>;
      const header = req.headers.authorization;
      if (header?.startsWith('Basic ')) {
        answerBasicFailuresWith401(res);
        const credentials = basicCredentials(header);
        if (!credentials) return oauthError(res, 401, 'invalid_client', 'Malformed Basic credentials');
        if (body.client_secret !== undefined) return oauthError(res, 400, 'invalid_request', 'Use one client authentication method, not both');
        if (body.client_id !== undefined && body.client_id !== credentials.id) return oauthError(res, 400, 'invalid_request', 'client_id in the body differs from the Basic credentials');
        body.client_id = credentials.id;
        body.client_secret = credentials.secret;
      }
      if (typeof body.client_secret === 'string') body.client_secret = hashSecret(body.client_secret);
      next();
    },
  ];
}
