import { randomBytes } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import rateLimit from 'express-rate-limit';
import { z } from 'zod';
import { ERROR_STATUS, StewardError } from '../../../core/errors';
import { withTenantTransaction } from '../../../db/pool';
import type { ModuleWebhook, WebhookDeps } from '../../module';
import { requireContact, verifyMemberViewerPass } from '../../people/api';
import { contactViewerKey, pollResults, heartbeat, listChat, postChat, publicStream, startSession, streamPolls, submitPrayer, viewerKey, vote, VIEWER_TOKEN } from '../viewers';
import { watchPage } from './page';

/**
 * What strangers reach: the viewer page and its small JSON API under /live/. Every request is
 * rate-limited per address (held in memory for the window, never stored), bodies are capped at
 * 4 KB and validated, and what viewers write is only ever sent back as JSON text for the page to
 * place with textContent. The viewer is a daily salted hash of a token their browser made
 * (viewers.ts); no address is written anywhere.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const token = z.string().regex(VIEWER_TOKEN);
/** A signed-in member's pass from the portal (people's memberWatchPath); without a valid one the viewer is anonymous. */
const memberPass = z.string().min(1).max(300).optional();
const BODIES = {
  session: z.object({ viewerToken: token, memberPass }).strict(),
  heartbeat: z.object({ viewerToken: token, memberPass, sessionId: z.string().regex(UUID) }).strict(),
  chat: z.object({ viewerToken: token, memberPass, name: z.string().trim().min(1).max(60), body: z.string().trim().min(1).max(500) }).strict(),
  vote: z.object({ viewerToken: token, memberPass, optionId: z.string().min(1).max(20) }).strict(),
  prayer: z.object({ viewerToken: token, memberPass, name: z.string().trim().max(100).optional(), contact: z.string().trim().max(200).optional(), body: z.string().trim().min(1).max(2000), private: z.boolean().optional() }).strict(),
};

/**
 * Who is watching: a member signed in through the portal is their contact (`c:<id>`, once per day in the
 * figures); anyone else the daily salted hash of their browser's token. A pass for a contact that is not
 * (or no longer) the organisation's counts as anonymous.
 */
async function viewerOf(db: Parameters<typeof publicStream>[0], orgId: string, body: { viewerToken: string; memberPass?: string }): Promise<{ key: string; contactId: string | null }> {
  const named = body.memberPass ? verifyMemberViewerPass(orgId, body.memberPass) : null;
  const contactId = named && await requireContact(db, orgId, named).then(() => named, () => null);
  return contactId ? { key: contactViewerKey(contactId), contactId } : { key: await viewerKey(db, orgId, body.viewerToken), contactId: null };
}

/** Requests a minute from one address to the public API (LIVE_PUBLIC_RATE_LIMIT; a congregation behind one router shares it). */
const perMinute = () => Number(process.env.LIVE_PUBLIC_RATE_LIMIT ?? 1200);

function fail(res: Response, error: unknown): void {
  if (error instanceof StewardError) {
    res.status(ERROR_STATUS[error.code] ?? 400).json({ ok: false, error: { code: error.code, message: error.message, ...(error.details?.reason ? { reason: error.details.reason } : {}) } });
    return;
  }
  res.status(500).json({ ok: false, error: { code: 'internal_error', message: 'Something went wrong' } });
}

function ids(req: Request): { orgId: string; streamId: string } | null {
  const orgId = String(req.params.orgId ?? '');
  const streamId = String(req.params.streamId ?? '');
  return UUID.test(orgId) && UUID.test(streamId) ? { orgId, streamId } : null;
}

function parse<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new StewardError('validation_failed', 'The request is not valid', { issues: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })) });
  }
  return parsed.data;
}

function liveRouter(deps: WebhookDeps): Router {
  const router = Router();
  const limiter = rateLimit({
    windowMs: 60_000, limit: () => perMinute(), standardHeaders: 'draft-7', legacyHeaders: false,
    handler: (_req, res) => { res.status(429).json({ ok: false, error: { code: 'invalid_request', message: 'Too many requests; wait a minute and try again' } }); },
  });
  const json = express.json({ limit: '4kb', type: () => true });
  router.use('/live/', limiter);

  router.get('/live/watch/:orgId/:streamId', async (req, res) => {
    const named = ids(req);
    res.setHeader('cache-control', 'no-store');
    res.setHeader('referrer-policy', 'no-referrer');
    res.setHeader('x-content-type-options', 'nosniff');
    const notFoundPage = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stream not found</title></head><body><h1>This stream is not available</h1></body></html>';
    if (!named) return void res.status(404).type('html').send(notFoundPage);
    try {
      const stream = await withTenantTransaction(deps.pool, named.orgId, (db) => publicStream(db, named.orgId, named.streamId), { readOnly: true });
      const nonce = randomBytes(16).toString('base64');
      res.setHeader('content-security-policy', `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; frame-src https://www.youtube.com; base-uri 'none'; form-action 'none'`);
      res.type('html').send(watchPage({ title: stream.title, apiBase: `/live/api/${named.orgId}/${named.streamId}`, nonce, broadcastId: stream.provider_broadcast_id, provider: stream.provider }));
    } catch (error) {
      if (error instanceof StewardError && error.code === 'not_found') return void res.status(404).type('html').send(notFoundPage);
      res.status(500).type('html').send('<!doctype html><title>Error</title><h1>Something went wrong</h1>');
    }
  });

  router.get('/live/api/:orgId/:streamId/state', async (req, res) => {
    const named = ids(req);
    res.setHeader('cache-control', 'no-store');
    if (!named) return void res.status(404).json({ ok: false, error: { code: 'not_found', message: 'Stream not found' } });
    try {
      const state = await withTenantTransaction(deps.pool, named.orgId, async (db) => {
        const stream = await publicStream(db, named.orgId, named.streamId);
        const now = Date.now();
        const chatOpen = now >= stream.scheduled_start.getTime() - stream.chat_before_minutes * 60_000 && now <= (stream.ended_at ?? stream.scheduled_end).getTime() + stream.chat_after_minutes * 60_000;
        const messages = (await listChat(db, named.orgId, named.streamId, { includeHidden: false, limit: 100 })).map((m) => ({ id: m.id, displayName: m.displayName, body: m.body, createdAt: m.createdAt }));
        const polls = await streamPolls(db, named.orgId, named.streamId);
        const current = polls.find((p) => p.status === 'open') ?? polls.find((p) => p.status === 'closed');
        const results = current?.status === 'closed' ? (await pollResults(db, named.orgId, current.id)).results.map((r) => ({ optionId: r.optionId, label: r.label, votes: r.votes })) : undefined;
        return {
          title: stream.title, status: stream.status, startsAt: stream.scheduled_start.toISOString(), chatOpen, messages,
          poll: current ? { id: current.id, question: current.question, options: current.options, status: current.status, ...(results ? { results } : {}) } : null,
        };
      }, { readOnly: false });
      res.json({ ok: true, state });
    } catch (error) {
      fail(res, error);
    }
  });

  const action = <T extends z.ZodType>(path: string, schema: T, run: (db: Parameters<typeof publicStream>[0], named: { orgId: string; streamId: string; pollId?: string }, body: z.output<T>, key: string, contactId: string | null) => Promise<unknown>) => {
    router.post(`/live/api/:orgId/:streamId${path}`, json, async (req, res) => {
      const named = ids(req);
      res.setHeader('cache-control', 'no-store');
      if (!named) return void res.status(404).json({ ok: false, error: { code: 'not_found', message: 'Stream not found' } });
      const raw = (req.params as Record<string, string | undefined>).pollId;
      const pollId = raw === undefined ? undefined : String(raw);
      if (pollId !== undefined && !UUID.test(pollId)) return void res.status(404).json({ ok: false, error: { code: 'not_found', message: 'Poll not found' } });
      try {
        const body = parse(schema, req.body);
        const result = await withTenantTransaction(deps.pool, named.orgId, async (db) => {
          const viewer = await viewerOf(db, named.orgId, body as { viewerToken: string; memberPass?: string });
          return run(db, { ...named, pollId }, body, viewer.key, viewer.contactId);
        });
        res.json({ ok: true, ...(result as object) });
      } catch (error) {
        fail(res, error);
      }
    });
  };

  action('/session', BODIES.session, async (db, named, _body, key, contactId) => ({ ...await startSession(db, named.orgId, named.streamId, key, contactId), signedIn: contactId !== null }));
  action('/heartbeat', BODIES.heartbeat, (db, named, body, key) => heartbeat(db, named.orgId, named.streamId, body.sessionId, key));
  action('/chat', BODIES.chat, (db, named, { name, body }, key, contactId) => postChat(db, named.orgId, named.streamId, key, { name, body }, contactId));
  action('/polls/:pollId/vote', BODIES.vote, (db, named, body, key, contactId) => vote(db, named.orgId, named.streamId, named.pollId!, key, body.optionId, contactId));
  action('/prayer', BODIES.prayer, (db, named, { memberPass: _pass, viewerToken: _token, ...prayer }, key, contactId) => submitPrayer(db, named.orgId, named.streamId, key, prayer, contactId));

  // A body past the cap, or not JSON.
  router.use('/live/', (error: unknown, _req: Request, res: Response, next: (error?: unknown) => void) => {
    const status = (error as { status?: number })?.status;
    if (status === 413) return void res.status(413).json({ ok: false, error: { code: 'payload_too_large', message: 'The request is too large' } });
    if (status === 400) return void res.status(400).json({ ok: false, error: { code: 'invalid_request', message: 'The request is not JSON' } });
    next(error);
  });
  return router;
}

export const liveWebhooks: ModuleWebhook = { paths: ['/live/'], router: liveRouter };
