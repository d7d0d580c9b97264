import type { FollowUpPlanner, FollowUpStep } from '../../../core/tool-plan';
import { STREAM_KIND, streamWorkflowId } from './stream';

const streamOf = (result: unknown): { id?: unknown; status?: unknown } | undefined => {
  const value = result as { stream?: { id?: unknown; status?: unknown } } | null;
  return value?.stream;
};

/** A scheduled (or started unscheduled) stream gets its timer, once under its id; a change or an end wakes it. */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  'live.stream_timer': (result, { orgId }) => {
    const stream = streamOf(result);
    if (typeof stream?.id !== 'string') return [];
    return [{ start: 'liveStreamWorkflow', id: streamWorkflowId(stream.id), args: [{ orgId, streamId: stream.id }], searchAttributes: { kind: STREAM_KIND } } satisfies FollowUpStep];
  },
  'live.stream_changed': (result) => {
    const stream = streamOf(result);
    if (typeof stream?.id !== 'string') return [];
    return [{ signal: 'liveStreamChanged', id: streamWorkflowId(stream.id) } satisfies FollowUpStep];
  },
};
