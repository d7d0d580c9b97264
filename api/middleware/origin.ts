import type { NextFunction, Request, Response } from 'express';

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/**
 * DNS-rebinding protection: a browser page on another site that resolves to this
 * host still sends its own Origin, which we refuse. Requests without Origin
 * (servers, CLIs, SDK clients) pass.
 */
export function originGuard(allowedOrigins: readonly string[]) {
  const allowed = new Set(allowedOrigins.map((o) => o.replace(/\/$/, '')));
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (!origin || allowed.has(origin) || LOOPBACK_ORIGIN.test(origin)) {
      next();
      return;
    }
    res.status(403).json({ ok: false, error: { code: 'forbidden', message: `Origin ${origin} is not allowed` } });
  };
}
