import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryRows, type Queryable } from '../../../db/pool';
import { AI_URL_SETTING, aiSettings, cosine, embed, type AiSettings } from '../../platform/api';
import { requireContact } from '../contacts';
import { displayNameOf } from '../display-name';
import { analyticsStats, engagementOverview, smartDiscoveries } from './stats';

/**
 * The dashboard's AI tools, on the OpenAI-compatible provider the media AI tools use
 * (MEDIA_AI_API_URL, MEDIA_AI_API_KEY). Without it each answers not_configured, naming the setting
 * and the tool that answers without AI. What leaves for the provider: insights send only the
 * organisation's aggregate figures (no names, no notes); similar contacts send each person's stage,
 * tags, teams, town and age band, never names, contact details or notes.
 */
export function peopleAiSettings(neighbour: string, env: NodeJS.ProcessEnv = process.env): AiSettings {
  try {
    return aiSettings(env);
  } catch {
    throw new StewardError('not_configured', `AI is not configured on this server: set ${AI_URL_SETTING} (and MEDIA_AI_API_KEY) to an OpenAI-compatible API`, {
      hint: `${neighbour} answers without AI.`,
      details: { reason: 'not_configured', setting: AI_URL_SETTING, useInstead: neighbour },
    });
  }
}

const TIMEOUT_MS = 60_000;

async function chatJson(settings: AiSettings, instructions: string, data: unknown): Promise<unknown> {
  const unavailable = (status?: number) => new StewardError('unavailable', `The AI provider could not answer${status ? ` (HTTP ${status})` : ''}`, {
    hint: 'Try again shortly; people_get_smart_discoveries answers without AI.',
  });
  let response: Response;
  try {
    response = await fetch(`${settings.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body: JSON.stringify({
        model: process.env.PEOPLE_AI_MODEL || settings.visionModel,
        response_format: { type: 'json_object' },
        messages: [{ role: 'system', content: instructions }, { role: 'user', content: JSON.stringify(data) }],
      }),
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw unavailable();
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw unavailable(response.status);
  }
  try {
    const answer = (await response.json()) as { choices?: Array<{ message?: { content?: string } }> };
    return JSON.parse((answer.choices?.[0]?.message?.content ?? '').replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    throw unavailable();
  }
}

export interface Insight { title: string; detail: string; tool: string | null }

const clip = (value: unknown, limit: number) => (typeof value === 'string' ? value.trim().slice(0, limit) : '');

/** Insights for the dashboard from the organisation's aggregate figures (asked outside any transaction); storeInsights keeps them. */
export async function askForInsights(db: Queryable, orgId: string, settings: AiSettings): Promise<{ model: string; insights: Insight[] }> {
  const figures = {
    last30Days: await analyticsStats(db, orgId, 30),
    engagement: await engagementOverview(db, orgId, false),
    discoveries: (await smartDiscoveries(db, orgId, 0)).map(({ kind, title, count, rule }) => ({ kind, title, count, rule })),
  };
  const answer = await chatJson(settings,
    'You help a church office understand its people data. From the figures given, write up to 5 short, practical insights. '
    + 'Answer with JSON only: {"insights": [{"title": string (under 80 characters), "detail": string (1-2 sentences citing the figures), "tool": string or null (one of: '
    + 'people_get_smart_discoveries, people_get_integration_overview, people_list_welcome_desk_visitors, people_get_engagement_overview, people_get_smart_content_birthdays)}]}.',
    figures) as { insights?: unknown[] };
  const allowedTools = new Set(['people_get_smart_discoveries', 'people_get_integration_overview', 'people_list_welcome_desk_visitors', 'people_get_engagement_overview', 'people_get_smart_content_birthdays']);
  const insights: Insight[] = (Array.isArray(answer?.insights) ? answer.insights : []).slice(0, 5).map((raw) => {
    const item = raw as Record<string, unknown>;
    const tool = clip(item.tool, 80);
    return { title: clip(item.title, 120), detail: clip(item.detail, 600), tool: allowedTools.has(tool) ? tool : null };
  }).filter((insight) => insight.title.length > 0);
  return { model: process.env.PEOPLE_AI_MODEL || settings.visionModel, insights };
}

export async function storeInsights(db: Queryable, orgId: string, userId: string, generated: { model: string; insights: Insight[] }) {
  const id = randomUUID();
  const row = await queryRows<{ created_at: Date }>(db, `INSERT INTO people_dashboard_insights (id, org_id, generated_by_user_id, model, insights)
    VALUES ($1, $2, $3, $4, $5::jsonb) RETURNING created_at`, [id, orgId, userId, generated.model, JSON.stringify(generated.insights)]);
  return { id, model: generated.model, generatedAt: row[0]!.created_at.toISOString(), insights: generated.insights };
}

export async function listInsights(db: Queryable, orgId: string, limit: number) {
  const rows = await queryRows<{ id: string; model: string; insights: Insight[]; created_at: Date }>(db,
    'SELECT id, model, insights, created_at FROM people_dashboard_insights WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2', [orgId, limit]);
  return rows.map((row) => ({ id: row.id, model: row.model, generatedAt: row.created_at.toISOString(), insights: row.insights }));
}

type TraitRow = { id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null;
  membership_status: string | null; address_city: string | null; age: number | null; tags: string[]; teams: string[] };

const TRAITS_SQL = `
  SELECT c.id, c.first_name, c.last_name, c.preferred_name, c.email, c.membership_status, c.address_city,
    extract(year FROM age(current_date, c.date_of_birth))::int AS age,
    COALESCE((SELECT array_agg(t.name ORDER BY t.name) FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id AND t.org_id = ct.org_id WHERE ct.org_id = c.org_id AND ct.contact_id = c.id), '{}') AS tags,
    COALESCE((SELECT array_agg(g.name ORDER BY g.name) FROM crm_group_members m JOIN crm_groups g ON g.id = m.group_id AND g.org_id = m.org_id WHERE m.org_id = c.org_id AND m.contact_id = c.id), '{}') AS teams
  FROM contacts c`;

function traitsText(row: TraitRow): string {
  const band = row.age === null ? 'age unknown' : `age ${Math.floor(row.age / 10) * 10}s`;
  return [`stage: ${row.membership_status ?? 'none'}`, band, `town: ${row.address_city ?? 'unknown'}`, `tags: ${row.tags.join(', ') || 'none'}`, `teams: ${row.teams.join(', ') || 'none'}`].join('; ');
}

/** Up to 200 other live contacts ranked by how alike their traits read to the provider's embeddings; each with what they share. */
export async function findSimilarContacts(db: Queryable, orgId: string, contactId: string, limit: number, settings: AiSettings) {
  await requireContact(db, orgId, contactId);
  const [self] = await queryRows<TraitRow>(db, `${TRAITS_SQL} WHERE c.org_id = $1 AND c.id = $2`, [orgId, contactId]);
  const others = await queryRows<TraitRow>(db, `${TRAITS_SQL} WHERE c.org_id = $1 AND c.id <> $2 AND c.deleted_at IS NULL ORDER BY c.updated_at DESC, c.id LIMIT 200`, [orgId, contactId]);
  if (others.length === 0) return { contactId, compared: 0, similar: [] };
  const vectors = await embed(settings, [traitsText(self!), ...others.map(traitsText)]);
  const scored = others.map((row, index) => {
    const shared = [
      ...row.tags.filter((tag) => self!.tags.includes(tag)).map((tag) => `tag ${tag}`),
      ...row.teams.filter((team) => self!.teams.includes(team)).map((team) => `team ${team}`),
      ...(row.membership_status && row.membership_status === self!.membership_status ? [`stage ${row.membership_status}`] : []),
      ...(row.address_city && row.address_city === self!.address_city ? [`town ${row.address_city}`] : []),
    ];
    return { contactId: row.id, displayName: displayNameOf(row), similarity: Math.round(cosine(vectors[0]!, vectors[index + 1]!) * 1000) / 1000, shared };
  }).sort((a, b) => b.similarity - a.similarity);
  return { contactId, compared: others.length, similar: scored.slice(0, limit) };
}
