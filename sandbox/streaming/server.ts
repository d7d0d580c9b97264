import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local streaming provider for development and tests, shaped like the YouTube Live API: a
 * broadcast (the event viewers watch) is bound to a stream (the ingest an encoder sends to), and
 * moves created → ready (bound) → testing → live → complete only through transitions, each refused
 * as YouTube refuses it: testing and live need the bound stream's ingest to be active, and a
 * transition to the state a broadcast is already in is redundant. Everything is kept in memory;
 * nothing leaves the machine, no video is received: "ingest" is switched on and off through the
 * sandbox's control endpoints, as an encoder starting and stopping would.
 *
 * Provider endpoints (Authorization: Bearer <key>; JSON bodies):
 *   POST /youtube/v3/liveBroadcasts                      {snippet: {title, scheduledStartTime, scheduledEndTime}} → broadcast (created)
 *   POST /youtube/v3/liveStreams                         {snippet: {title}} → stream {cdn.ingestionInfo, status.streamStatus: ready}
 *   POST /youtube/v3/liveBroadcasts/bind?id=&streamId=   → broadcast (ready)
 *   POST /youtube/v3/liveBroadcasts/transition?broadcastStatus=testing|live|complete&id=
 *   PUT  /youtube/v3/liveBroadcasts                      {id, snippet} → broadcast (title and times changed)
 *   GET  /youtube/v3/liveBroadcasts?id=                  {items: [broadcast]}
 *   GET  /youtube/v3/liveStreams?id=                     {items: [stream]}
 *   DELETE /youtube/v3/liveBroadcasts?id=                → 204 (refused while testing or live)
 *   DELETE /youtube/v3/liveStreams?id=                   → 204 (refused while a broadcast is bound to it)
 * Inspection and control (for people and tests; no key):
 *   GET  /sandbox/broadcasts                             every broadcast with its stream
 *   POST /sandbox/streams/{id}/ingest                    {active: true|false}: the encoder started or stopped sending
 */

export type LifeCycleStatus = 'created' | 'ready' | 'testing' | 'live' | 'complete' | 'revoked';
export type StreamStatus = 'created' | 'ready' | 'active' | 'inactive' | 'error';

export interface SandboxBroadcast {
  id: string; kind: 'youtube#liveBroadcast';
  snippet: { title: string; scheduledStartTime: string; scheduledEndTime: string | null; actualStartTime: string | null; actualEndTime: string | null };
  status: { lifeCycleStatus: LifeCycleStatus; privacyStatus: string };
  contentDetails: { boundStreamId: string | null; enableMonitorStream: boolean };
}

export interface SandboxStream {
  id: string; kind: 'youtube#liveStream';
  snippet: { title: string };
  cdn: { ingestionType: 'rtmp'; ingestionInfo: { streamName: string; ingestionAddress: string } };
  status: { streamStatus: StreamStatus; healthStatus: { status: 'good' | 'noData' } };
}

export interface StreamingSandbox {
  url: string;
  apiKey: string;
  env(): Record<string, string>;
  broadcasts(): SandboxBroadcast[];
  /** The encoder starts (true) or stops (false) sending to a stream. */
  setIngest(streamId: string, active: boolean): void;
  /**
   * For tests: a hook run before each API request is answered (e.g. `liveBroadcasts/transition`);
   * it may wait (a slow provider) or return a refusal to answer instead. null removes it.
   */
  intercept(hook: SandboxHook | null): void;
  close(): Promise<void>;
}

export type SandboxHook = (request: { method: string; resource: string }) => Promise<{ status: number; reason: string; message: string } | void>;

export interface StreamingSandboxConfig { port?: number; host?: string; apiKey: string }

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A refusal in the shape YouTube answers with: {error: {code, message, errors: [{reason}]}}. */
function refuse(res: http.ServerResponse, status: number, reason: string, message: string): void {
  json(res, status, { error: { code: status, message, errors: [{ reason, message }] } });
}

async function readJson(req: http.IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

const NEXT: Record<string, readonly LifeCycleStatus[]> = { testing: ['ready'], live: ['ready', 'testing'], complete: ['testing', 'live'] };

export async function startStreamingSandbox(config: StreamingSandboxConfig): Promise<StreamingSandbox> {
  const broadcasts = new Map<string, SandboxBroadcast>();
  const streams = new Map<string, SandboxStream>();
  const now = () => new Date().toISOString();
  const id = () => randomBytes(8).toString('base64url');
  let hook: SandboxHook | null = null;

  function transition(res: http.ServerResponse, broadcastId: string, to: string): void {
    const broadcast = broadcasts.get(broadcastId);
    if (!broadcast) return refuse(res, 404, 'liveBroadcastNotFound', 'Broadcast not found');
    if (!(to in NEXT)) return refuse(res, 400, 'invalidValue', 'broadcastStatus must be testing, live or complete');
    const current = broadcast.status.lifeCycleStatus;
    if (current === to) return refuse(res, 403, 'redundantTransition', `The broadcast is already ${to}`);
    if (!NEXT[to]!.includes(current)) return refuse(res, 403, 'invalidTransition', `A broadcast cannot move from ${current} to ${to}`);
    const stream = broadcast.contentDetails.boundStreamId ? streams.get(broadcast.contentDetails.boundStreamId) : undefined;
    if (to !== 'complete' && stream?.status.streamStatus !== 'active') return refuse(res, 403, 'errorStreamInactive', 'The bound stream is not active: start the encoder first');
    broadcast.status.lifeCycleStatus = to as LifeCycleStatus;
    if (to === 'live') broadcast.snippet.actualStartTime = now();
    if (to === 'complete') broadcast.snippet.actualEndTime = now();
    json(res, 200, broadcast);
  }

  function deleteBroadcast(res: http.ServerResponse, broadcastId: string): void {
    const broadcast = broadcasts.get(broadcastId);
    if (!broadcast) return refuse(res, 404, 'liveBroadcastNotFound', 'Broadcast not found');
    if (['testing', 'live'].includes(broadcast.status.lifeCycleStatus)) return refuse(res, 403, 'invalidTransition', 'A broadcast on air cannot be deleted; complete it first');
    broadcasts.delete(broadcastId);
    res.writeHead(204).end();
  }

  function deleteStream(res: http.ServerResponse, streamId: string): void {
    if (!streams.has(streamId)) return refuse(res, 404, 'liveStreamNotFound', 'Stream not found');
    if ([...broadcasts.values()].some((b) => b.contentDetails.boundStreamId === streamId)) return refuse(res, 403, 'liveStreamBound', 'A broadcast is still bound to this stream');
    streams.delete(streamId);
    res.writeHead(204).end();
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://sandbox');
      const path = url.pathname;
      const ingest = /^\/sandbox\/streams\/([^/]+)\/ingest$/.exec(path);
      if (req.method === 'GET' && path === '/sandbox/broadcasts') {
        return json(res, 200, [...broadcasts.values()].map((b) => ({ broadcast: b, stream: b.contentDetails.boundStreamId ? streams.get(b.contentDetails.boundStreamId) : null })));
      }
      if (req.method === 'POST' && ingest) {
        const stream = streams.get(decodeURIComponent(ingest[1]!));
        if (!stream) return refuse(res, 404, 'liveStreamNotFound', 'Stream not found');
        const body = await readJson(req);
        setIngest(stream.id, body.active !== false);
        return json(res, 200, stream);
      }
      if (!path.startsWith('/youtube/v3/')) return refuse(res, 404, 'notFound', 'Not found');
      if (req.headers.authorization !== `Bearer ${config.apiKey}`) return refuse(res, 401, 'authError', 'Invalid credentials');
      const resource = path.slice('/youtube/v3/'.length);
      const refusal = hook ? await hook({ method: req.method ?? 'GET', resource }) : undefined;
      if (refusal) return refuse(res, refusal.status, refusal.reason, refusal.message);
      if (req.method === 'POST' && resource === 'liveBroadcasts') {
        const body = await readJson(req);
        const title = String(body?.snippet?.title ?? '').slice(0, 100);
        if (!title || !body?.snippet?.scheduledStartTime) return refuse(res, 400, 'invalidValue', 'snippet.title and snippet.scheduledStartTime are required');
        const broadcast: SandboxBroadcast = {
          id: id(), kind: 'youtube#liveBroadcast',
          snippet: { title, scheduledStartTime: String(body.snippet.scheduledStartTime), scheduledEndTime: body.snippet.scheduledEndTime ?? null, actualStartTime: null, actualEndTime: null },
          status: { lifeCycleStatus: 'created', privacyStatus: String(body?.status?.privacyStatus ?? 'unlisted') },
          contentDetails: { boundStreamId: null, enableMonitorStream: true },
        };
        broadcasts.set(broadcast.id, broadcast);
        return json(res, 200, broadcast);
      }
      if (req.method === 'PUT' && resource === 'liveBroadcasts') {
        const body = await readJson(req);
        const broadcast = broadcasts.get(String(body?.id ?? ''));
        if (!broadcast) return refuse(res, 404, 'liveBroadcastNotFound', 'Broadcast not found');
        if (body.snippet?.title) broadcast.snippet.title = String(body.snippet.title).slice(0, 100);
        if (body.snippet?.scheduledStartTime) broadcast.snippet.scheduledStartTime = String(body.snippet.scheduledStartTime);
        if (body.snippet?.scheduledEndTime) broadcast.snippet.scheduledEndTime = String(body.snippet.scheduledEndTime);
        return json(res, 200, broadcast);
      }
      if (req.method === 'POST' && resource === 'liveStreams') {
        const body = await readJson(req);
        const stream: SandboxStream = {
          id: id(), kind: 'youtube#liveStream', snippet: { title: String(body?.snippet?.title ?? 'Stream').slice(0, 100) },
          cdn: { ingestionType: 'rtmp', ingestionInfo: { streamName: `${randomUUID().slice(0, 4)}-${randomUUID().slice(0, 4)}-${randomUUID().slice(0, 4)}`, ingestionAddress: 'rtmp://a.rtmp.sandbox.invalid/live2' } },
          status: { streamStatus: 'ready', healthStatus: { status: 'noData' } },
        };
        streams.set(stream.id, stream);
        return json(res, 200, stream);
      }
      if (req.method === 'POST' && resource === 'liveBroadcasts/bind') {
        const broadcast = broadcasts.get(url.searchParams.get('id') ?? '');
        const stream = streams.get(url.searchParams.get('streamId') ?? '');
        if (!broadcast) return refuse(res, 404, 'liveBroadcastNotFound', 'Broadcast not found');
        if (!stream) return refuse(res, 404, 'liveStreamNotFound', 'Stream not found');
        if (!['created', 'ready'].includes(broadcast.status.lifeCycleStatus)) return refuse(res, 403, 'invalidTransition', 'Only a broadcast not yet started can be bound');
        broadcast.contentDetails.boundStreamId = stream.id;
        broadcast.status.lifeCycleStatus = 'ready';
        return json(res, 200, broadcast);
      }
      if (req.method === 'POST' && resource === 'liveBroadcasts/transition') {
        return transition(res, url.searchParams.get('id') ?? '', url.searchParams.get('broadcastStatus') ?? '');
      }
      if (req.method === 'GET' && resource === 'liveBroadcasts') {
        const found = broadcasts.get(url.searchParams.get('id') ?? '');
        return json(res, 200, { kind: 'youtube#liveBroadcastListResponse', items: found ? [found] : [] });
      }
      if (req.method === 'GET' && resource === 'liveStreams') {
        const found = streams.get(url.searchParams.get('id') ?? '');
        return json(res, 200, { kind: 'youtube#liveStreamListResponse', items: found ? [found] : [] });
      }
      if (req.method === 'DELETE' && resource === 'liveBroadcasts') return deleteBroadcast(res, url.searchParams.get('id') ?? '');
      if (req.method === 'DELETE' && resource === 'liveStreams') return deleteStream(res, url.searchParams.get('id') ?? '');
      return refuse(res, 404, 'notFound', 'Not found');
    })().catch((error: unknown) => refuse(res, 400, 'badRequest', error instanceof Error ? error.message : 'bad request'));
  });

  function setIngest(streamId: string, active: boolean): void {
    const stream = streams.get(streamId);
    if (!stream) throw new Error(`No stream ${streamId}`);
    stream.status.streamStatus = active ? 'active' : 'inactive';
    stream.status.healthStatus.status = active ? 'good' : 'noData';
  }

  await new Promise<void>((resolve) => server.listen(config.port ?? 0, config.host ?? '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  const url = `http://${config.host ?? '127.0.0.1'}:${address.port}`;
  return {
    url, apiKey: config.apiKey,
    env: () => ({ STREAMING_API_URL: url, STREAMING_API_KEY: config.apiKey }),
    broadcasts: () => [...broadcasts.values()],
    setIngest,
    intercept: (next) => { hook = next; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

export function streamingSandboxConfigFromEnv(env: NodeJS.ProcessEnv = process.env): StreamingSandboxConfig {
  return { port: env.STREAMING_SANDBOX_PORT ? Number(env.STREAMING_SANDBOX_PORT) : 0, apiKey: env.STREAMING_API_KEY ?? `sandbox_${randomUUID().replace(/-/g, '')}` };
}
