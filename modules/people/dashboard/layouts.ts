import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { queryOne, type Queryable } from '../../../db/pool';

/**
 * Dashboard layouts: each user arranges the widgets of the people module's main dashboard and of
 * its CRM dashboard for themselves. A layout is an ordered list of known widgets, each at most once,
 * with a size; until a user saves one, the board's default applies.
 */
export const BOARDS = ['main', 'crm'] as const;
export type Board = (typeof BOARDS)[number];

/** The widgets each board can show, with what each shows (the tools behind them). */
export const BOARD_WIDGETS: Record<Board, Record<string, string>> = {
  main: {
    analytics_stats: 'Headline people figures (people_get_analytics_stats)',
    contact_stats: 'Contacts by status and stage (people_get_contact_stats)',
    crm_chart: 'New contacts and activity over time (people_get_crm_analytics_chart)',
    recent_activities: 'What happened lately (people_list_recent_activities)',
    engagement: 'Engagement overview (people_get_engagement_overview)',
    smart_discoveries: 'Things worth a look (people_get_smart_discoveries)',
    birthdays: 'Upcoming birthdays (people_get_smart_content_birthdays)',
    new_members: 'New members (people_get_smart_content_new_members)',
    integration: 'Newcomer journey and stalled contacts (people_get_integration_overview)',
    ai_insights: 'AI insights (people_list_dashboard_ai_insights)',
    follow_ups: 'Open Welcome Desk follow-ups (people_list_follow_up_tasks)',
  },
  crm: {
    contact_stats: 'Contacts by status and stage (people_get_contact_stats)',
    crm_chart: 'CRM analytics chart (people_get_crm_analytics_chart)',
    tags: 'Tags with counts (people_list_crm_tags_api)',
    groups: 'Ministry teams (people_list_crm_groups_api)',
    saved_searches: 'Saved searches (people_list_crm_search_config)',
    recent_activities: 'Recent activity (people_list_recent_activities)',
    partner_shares: 'Partner shares (people_list_partner_shares)',
    bulk_operations: 'Bulk operations (people_run_contacts_bulk_operation)',
  },
};

export const WIDGET_SIZES = ['small', 'medium', 'large'] as const;
export const MAX_LAYOUT_WIDGETS = 24;

export const layoutWidgetSchema = z.object({
  widget: z.string().trim().min(1).max(40).describe('A widget id the board knows (see availableWidgets)'),
  size: z.enum(WIDGET_SIZES).default('medium'),
  hidden: z.boolean().default(false).describe('Kept in the layout but not shown'),
});
export type LayoutWidget = z.output<typeof layoutWidgetSchema>;

const DEFAULTS: Record<Board, LayoutWidget[]> = {
  main: ['analytics_stats', 'crm_chart', 'recent_activities', 'birthdays', 'new_members', 'integration'].map((widget) => ({ widget, size: 'medium', hidden: false })),
  crm: ['contact_stats', 'crm_chart', 'tags', 'groups', 'saved_searches'].map((widget) => ({ widget, size: 'medium', hidden: false })),
};

export interface Layout {
  board: Board;
  widgets: LayoutWidget[];
  isDefault: boolean;
  updatedAt: string | null;
  availableWidgets: Array<{ widget: string; shows: string }>;
}

function available(board: Board) {
  return Object.entries(BOARD_WIDGETS[board]).map(([widget, shows]) => ({ widget, shows }));
}

export async function getLayout(db: Queryable, orgId: string, userId: string, board: Board): Promise<Layout> {
  const row = await queryOne<{ widgets: LayoutWidget[]; updated_at: Date }>(db,
    'SELECT widgets, updated_at FROM people_dashboard_layouts WHERE org_id = $1 AND user_id = $2 AND board = $3', [orgId, userId, board]);
  return row
    ? { board, widgets: row.widgets, isDefault: false, updatedAt: row.updated_at.toISOString(), availableWidgets: available(board) }
    : { board, widgets: DEFAULTS[board], isDefault: true, updatedAt: null, availableWidgets: available(board) };
}

/** Refuses unknown and repeated widgets, each named; an empty list resets the board to its default. */
export function validateLayout(board: Board, widgets: readonly LayoutWidget[]): void {
  const issues: Array<{ path: string; message: string }> = [];
  const seen = new Set<string>();
  widgets.forEach((entry, index) => {
    if (!Object.prototype.hasOwnProperty.call(BOARD_WIDGETS[board], entry.widget)) {
      issues.push({ path: `widgets.${index}.widget`, message: `"${entry.widget}" is not a widget of the ${board} dashboard` });
    } else if (seen.has(entry.widget)) {
      issues.push({ path: `widgets.${index}.widget`, message: `"${entry.widget}" appears more than once` });
    }
    seen.add(entry.widget);
  });
  if (issues.length > 0) {
    throw new StewardError('validation_failed', `The ${board} dashboard layout names widgets it cannot show`, {
      hint: `Use the widget ids in availableWidgets (people_get_${board}_dashboard_layout), each once: ${Object.keys(BOARD_WIDGETS[board]).join(', ')}.`,
      issues,
    });
  }
}

export async function setLayout(db: Queryable, orgId: string, userId: string, board: Board, widgets: readonly LayoutWidget[]): Promise<Layout> {
  validateLayout(board, widgets);
  if (widgets.length === 0) {
    await db.query('DELETE FROM people_dashboard_layouts WHERE org_id = $1 AND user_id = $2 AND board = $3', [orgId, userId, board]);
  } else {
    await db.query(`INSERT INTO people_dashboard_layouts (org_id, user_id, board, widgets, updated_at) VALUES ($1, $2, $3, $4::jsonb, now())
      ON CONFLICT (org_id, user_id, board) DO UPDATE SET widgets = EXCLUDED.widgets, updated_at = now()`, [orgId, userId, board, JSON.stringify(widgets)]);
  }
  return getLayout(db, orgId, userId, board);
}
