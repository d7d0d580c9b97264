import { StewardError } from '../../core/errors';

/**
 * The streaming provider adapter: YouTube Live's API as the live module needs it (a broadcast
 * bound to an ingest stream, transitions, status). STREAMING_API_URL names the provider
 * (https://www.googleapis.com, or the local sandbox, sandbox/streaming/) and STREAMING_API_KEY its
 * credential; `npm start` starts the sandbox when neither is set. Nothing here logs the key.
 */

export type ProviderLifeCycle = 'created' | 'ready' | 'testing' | 'live' | 'complete' | 'revoked';
export type ProviderIngest = 'created' | 'ready' | 'active' | 'inactive' | 'error';

export interface ProviderStatus { lifeCycleStatus: ProviderLifeCycle; streamStatus: ProviderIngest | null; health: string | null }

export interface StreamingProvider {
  readonly name: string;
  createBroadcast(input: { title: string; startsAt: string; endsAt: string }): Promise<{ broadcastId: string; streamId: string }>;
  updateBroadcast(broadcastId: string, input: { title: string; startsAt: string; endsAt: string }): Promise<void>;
  status(broadcastId: string, streamId: string | null): Promise<ProviderStatus>;
  transition(broadcastId: string, to: 'testing' | 'live' | 'complete'): Promise<{ ok: true } | { ok: false; reason: string; message: string }>;
  /** Deletes a broadcast nobody will use and its ingest stream (one made by a provisioning that lost a race). */
  deleteBroadcast(broadcastId: string, streamId: string | null): Promise<void>;
}

export function streamingProviderFromEnv(env: NodeJS.ProcessEnv = process.env): StreamingProvider | null {
  if (!env.STREAMING_API_URL || !env.STREAMING_API_KEY) return null;
  return youtubeLike(env.STREAMING_API_URL.replace(/\/+$/, ''), env.STREAMING_API_KEY);
}

export function requireProvider(): StreamingProvider {
  const provider = streamingProviderFromEnv();
  if (!provider) {
    throw new StewardError('not_configured', 'No streaming provider is configured (STREAMING_API_URL and STREAMING_API_KEY)', {
      hint: 'Set STREAMING_API_URL and STREAMING_API_KEY (npm start runs a local sandbox when they are unset).',
    });
  }
  return provider;
}

function youtubeLike(apiUrl: string, key: string): StreamingProvider {
  async function request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    let response: Response;
    try {
      response = await fetch(`${apiUrl}/youtube/v3/${path}`, {
        method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    } catch {
      throw new StewardError('unavailable', 'The streaming provider could not be reached', { hint: 'Try again in a moment.' });
    }
    const text = await response.text();
    let parsed: unknown = null;
    try { parsed = text ? JSON.parse(text) : null; } catch { parsed = null; }
    return { status: response.status, body: parsed };
  }
  const failed = (what: string, answer: { status: number; body: any }) =>
    new StewardError('conflict', `The streaming provider refused to ${what}: ${String(answer.body?.error?.message ?? answer.status).slice(0, 200)}`, {
      details: { reason: 'provider_refused', providerReason: String(answer.body?.error?.errors?.[0]?.reason ?? 'unknown').slice(0, 60) },
    });
  return {
    name: 'youtube',
    async createBroadcast(input) {
      const broadcast = await request('POST', 'liveBroadcasts?part=snippet,status,contentDetails', {
        snippet: { title: input.title.slice(0, 100), scheduledStartTime: input.startsAt, scheduledEndTime: input.endsAt }, status: { privacyStatus: 'unlisted' },
      });
      if (broadcast.status !== 200) throw failed('create the broadcast', broadcast);
      const stream = await request('POST', 'liveStreams?part=snippet,cdn,status', { snippet: { title: input.title.slice(0, 100) }, cdn: { ingestionType: 'rtmp', resolution: 'variable', frameRate: 'variable' } });
      if (stream.status !== 200) throw failed('create the ingest stream', stream);
      const bound = await request('POST', `liveBroadcasts/bind?id=${encodeURIComponent(broadcast.body.id)}&streamId=${encodeURIComponent(stream.body.id)}&part=id,status,contentDetails`);
      if (bound.status !== 200) throw failed('bind the stream', bound);
      return { broadcastId: String(broadcast.body.id), streamId: String(stream.body.id) };
    },
    async updateBroadcast(broadcastId, input) {
      const answer = await request('PUT', 'liveBroadcasts?part=snippet', { id: broadcastId, snippet: { title: input.title.slice(0, 100), scheduledStartTime: input.startsAt, scheduledEndTime: input.endsAt } });
      if (answer.status !== 200) throw failed('update the broadcast', answer);
    },
    async status(broadcastId, streamId) {
      const broadcast = await request('GET', `liveBroadcasts?part=status&id=${encodeURIComponent(broadcastId)}`);
      const item = broadcast.body?.items?.[0];
      if (broadcast.status !== 200 || !item) throw failed('show the broadcast', broadcast);
      let streamStatus: ProviderIngest | null = null;
      let health: string | null = null;
      if (streamId) {
        const stream = await request('GET', `liveStreams?part=status&id=${encodeURIComponent(streamId)}`);
        streamStatus = stream.body?.items?.[0]?.status?.streamStatus ?? null;
        health = stream.body?.items?.[0]?.status?.healthStatus?.status ?? null;
      }
      return { lifeCycleStatus: item.status.lifeCycleStatus, streamStatus, health };
    },
    async deleteBroadcast(broadcastId, streamId) {
      // YouTube answers 204 No Content; one already gone (404) is as good as deleted.
      const gone = (answer: { status: number }) => answer.status === 204 || answer.status === 200 || answer.status === 404;
      const broadcast = await request('DELETE', `liveBroadcasts?id=${encodeURIComponent(broadcastId)}`);
      if (!gone(broadcast)) throw failed('delete the broadcast', broadcast);
      if (!streamId) return;
      const stream = await request('DELETE', `liveStreams?id=${encodeURIComponent(streamId)}`);
      if (!gone(stream)) throw failed('delete the ingest stream', stream);
    },
    async transition(broadcastId, to) {
      const answer = await request('POST', `liveBroadcasts/transition?broadcastStatus=${to}&id=${encodeURIComponent(broadcastId)}&part=status`);
      if (answer.status === 200) return { ok: true };
      return { ok: false, reason: String(answer.body?.error?.errors?.[0]?.reason ?? answer.status).slice(0, 60), message: String(answer.body?.error?.message ?? '').slice(0, 200) };
    },
  };
}
