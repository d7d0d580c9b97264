import type { ActivityDeps } from '../../module';
import { checkReview } from '../whatsapp-review';
import { guarded } from '../../activity-kit';

/** How often the review workflow asks the provider when no webhook came: first wait, doubling up to the cap. */
export interface ReviewPolling {
  firstMs: number;
  maxMs: number;
  /** After this long the workflow stops following; the row stays pending and a webhook still decides it. */
  giveUpMs: number;
}

const MINUTE = 60_000;

function numberFromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/**
 * The WhatsApp template review workflow's steps (workflows/templates-whatsapp-review.ts).
 * TEMPLATES_WHATSAPP_POLL_FIRST_MS / _MAX_MS / _GIVE_UP_MS tune the polling fallback
 * (defaults: 5 minutes, doubling to an hour, for 30 days).
 */
export function createTemplatesReviewActivities(deps: Pick<ActivityDeps, 'pool'>) {
  const { pool } = deps;
  return {
    async templatesReviewPolling(): Promise<ReviewPolling> {
      return {
        firstMs: numberFromEnv('TEMPLATES_WHATSAPP_POLL_FIRST_MS', 5 * MINUTE),
        maxMs: numberFromEnv('TEMPLATES_WHATSAPP_POLL_MAX_MS', 60 * MINUTE),
        giveUpMs: numberFromEnv('TEMPLATES_WHATSAPP_POLL_GIVE_UP_MS', 30 * 24 * 60 * MINUTE),
      };
    },
    /** The version's review now: the row (a webhook may have decided it), then, still pending and asked to, the provider's answer. */
    async templatesCheckReview(input: { orgId: string; versionId: string; poll: boolean }): Promise<{ status: string }> {
      return guarded(() => checkReview(pool, input.orgId, input.versionId, input.poll));
    },
  };
}

export type TemplatesReviewActivities = ReturnType<typeof createTemplatesReviewActivities>;
