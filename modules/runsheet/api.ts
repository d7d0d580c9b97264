/**
 * The runsheet module's public surface: what other modules may call (they name 'runsheet' in their `uses`).
 * Media Hub prefills a sermon episode from a plan: its title, date, series, speaker, scripture and songs.
 */
import { queryOne, queryRows, type Queryable } from '../../db/pool';

export interface PlanForEpisode {
  id: string;
  title: string | null;
  seriesTitle: string | null;
  date: string;
  instanceId: string | null;
  /** From an item's notes under "speaker" or "preacher" (the first found in running order). */
  speaker: string | null;
  /** From an item's notes under "scripture", "reading" or "passage". */
  scripture: string | null;
  /** The sermon item's title, when an item's notes name a speaker. */
  sermonTitle: string | null;
  songs: Array<{ songId: string | null; title: string; author: string | null; ccliNumber: string | null; publicDomain: boolean }>;
}

const noteOf = (notes: Record<string, string>, keys: readonly string[]): string | null => {
  for (const [key, value] of Object.entries(notes ?? {})) if (keys.includes(key.trim().toLowerCase()) && typeof value === 'string' && value.trim()) return value.trim();
  return null;
};

/** A plan of the organisation as an episode needs it, or null for none (another organisation's id included). */
export async function planForEpisode(db: Queryable, orgId: string, planId: string): Promise<PlanForEpisode | null> {
  const plan = await queryOne<{ id: string; title: string | null; series_title: string | null; plan_date: string; instance_id: string | null }>(db, `
    SELECT id, title, series_title, to_char(plan_date, 'YYYY-MM-DD') AS plan_date, instance_id FROM runsheet_plans WHERE org_id = $1 AND id = $2`, [orgId, planId]);
  if (!plan) return null;
  const items = await queryRows<{ kind: string; title: string; notes: Record<string, string>; song_id: string | null; song_title: string | null; author: string | null; ccli_number: string | null; public_domain: boolean | null }>(db, `
    SELECT i.kind, i.title, i.notes, i.song_id, s.title AS song_title, s.author, s.ccli_number, s.public_domain
    FROM runsheet_items i LEFT JOIN runsheet_songs s ON s.org_id = i.org_id AND s.id = i.song_id
    WHERE i.org_id = $1 AND i.plan_id = $2 ORDER BY i.sort_order, i.created_at`, [orgId, planId]);
  let speaker: string | null = null;
  let scripture: string | null = null;
  let sermonTitle: string | null = null;
  for (const item of items) {
    const named = noteOf(item.notes, ['speaker', 'preacher']);
    if (named && !speaker) { speaker = named; sermonTitle = item.title; }
    scripture ??= noteOf(item.notes, ['scripture', 'reading', 'passage']);
  }
  return {
    id: plan.id, title: plan.title, seriesTitle: plan.series_title, date: plan.plan_date, instanceId: plan.instance_id, speaker, scripture, sermonTitle,
    songs: items.filter((item) => item.kind === 'song').map((item) => ({
      songId: item.song_id, title: item.song_title ?? item.title, author: item.author, ccliNumber: item.ccli_number, publicDomain: Boolean(item.public_domain),
    })),
  };
}

/** Plans on a date range with the schedule instance they serve, for creating draft episodes ahead of time. */
export async function plansBetween(db: Queryable, orgId: string | null, from: Date, to: Date): Promise<Array<{ orgId: string; planId: string }>> {
  const rows = await queryRows<{ org_id: string; id: string }>(db, `SELECT org_id, id FROM runsheet_plans
    WHERE ($1::uuid IS NULL OR org_id = $1) AND starts_at >= $2 AND starts_at < $3 ORDER BY starts_at LIMIT 1000`, [orgId, from, to]);
  return rows.map((row) => ({ orgId: row.org_id, planId: row.id }));
}
