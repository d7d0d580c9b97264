import { z } from 'zod';
import { toolsFor } from '../../../kit';
import { canSeeRestricted } from '../../pastoral/privacy';
import { BOARD_WIDGETS, MAX_LAYOUT_WIDGETS, WIDGET_SIZES, getLayout, layoutWidgetSchema, setLayout, type Board } from '../layouts';
import {
  CHART_SERIES, JOURNEY_STAGES, analyticsStats, contactStats, crmChart, engagementOverview, integrationOverview, recentActivities, runStallDetection,
  smartBirthdays, smartDiscoveries, smartNewMembers,
} from '../stats';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

// ---------------------------------------------------------------- layouts

const layoutSchema = z.object({
  board: z.enum(['main', 'crm']),
  widgets: z.array(z.object({ widget: z.string(), size: z.enum(WIDGET_SIZES), hidden: z.boolean() }).strict()),
  isDefault: z.boolean().describe('True until this user saves a layout of their own'),
  updatedAt: z.string().nullable(),
  availableWidgets: z.array(z.object({ widget: z.string(), shows: z.string() }).strict()),
}).strict();

function layoutTools(board: Board, words: { title: string; examplesGet: string[]; examplesSet: string[] }) {
  const get = tools.read(`get_${board}_dashboard_layout`, {
    title: `${words.title} layout`,
    description: `The caller's own layout of the people module's ${board === 'main' ? 'main' : 'CRM'} dashboard: its widgets in order with their sizes, whether it is still the default, and every widget the board can show. Each user has their own; change it with people_set_${board}_dashboard_layout.`,
    keywords: ['dashboard layout', 'widgets', 'panels', 'boxes', 'home screen', 'arrange dashboard', `${board} dashboard`],
    examples: words.examplesGet,
    input: z.object({}),
    output: z.object({ layout: layoutSchema }).strict(),
    run: async (ctx) => ({ layout: await getLayout(ctx.db, ctx.org.id, ctx.principal.userId, board) }),
  });
  const set = tools.write(`set_${board}_dashboard_layout`, {
    title: `Set the ${words.title.toLowerCase()} layout`,
    description: `Saves the caller's own layout of the ${board === 'main' ? 'main' : 'CRM'} people dashboard: widgets in the order to show them, each once, with a size (small, medium, large) and optionally hidden. Unknown or repeated widgets are refused, each named; an empty list goes back to the default. Other users' layouts are untouched. Widgets: ${Object.keys(BOARD_WIDGETS[board]).join(', ')}.`,
    keywords: ['rearrange dashboard', 'customise dashboard', 'dashboard widgets', 'panels', 'boxes', 'home screen', `${board} dashboard layout`],
    examples: words.examplesSet,
    idempotent: true,
    input: z.object({ widgets: z.array(layoutWidgetSchema).max(MAX_LAYOUT_WIDGETS).describe('Widgets in display order; [] resets to the default') }),
    output: z.object({ layout: layoutSchema }).strict(),
    run: async (ctx, input) => ({ layout: await setLayout(ctx.db, ctx.org.id, ctx.principal.userId, board, input.widgets) }),
  });
  return [get, set];
}

export const layoutToolList = [
  ...layoutTools('main', {
    title: 'Main people dashboard',
    examplesGet: ['what widgets are on my people dashboard', 'show how my main dashboard is laid out', 'which panels can I add to the people home page', 'is my dashboard still the default layout', 'what is on my people home screen and in what order', 'list the widgets available for the main people dashboard', 'how big is each box on my main dashboard', 'which widgets have I hidden on my people dashboard', 'my dashboard layout', "I think I hid something on my people home page by accident, show me what's on it", 'which widgets could I add to my main dashboard?'],
    examplesSet: ['put birthdays first on my people dashboard', 'hide the AI insights panel on my dashboard', 'rearrange my main dashboard: chart, then recent activity', 'reset my people dashboard to the default layout', 'make the chart widget large on my home dashboard', 'show follow-ups and new members at the top of my home screen', 'make the birthdays box small and engagement large', 'hide smart discoveries on my main people page', 'birthdays box to the top', 'I never look at the engagement panel on my home page, hide it and make the chart bigger', 'can my people dashboard go back to how it started?'],
  }),
  ...layoutTools('crm', {
    title: 'CRM dashboard',
    examplesGet: ['how is my CRM dashboard arranged', 'which widgets can go on the CRM dashboard', 'show my CRM board layout', 'what order are the boxes on my CRM page', 'is my CRM board still the default arrangement', 'which panels have I hidden on the CRM dashboard', 'what sizes are my CRM dashboard widgets', 'list every widget the CRM board can show', 'my CRM board layout', "I'm setting up the CRM page for a new administrator, show me how mine is arranged", 'which boxes can go on the CRM dashboard?'],
    examplesSet: ['add the saved searches panel to my CRM dashboard', 'take the partner shares widget off my CRM board', 'set my CRM dashboard to tags, groups and the chart', 'reset the CRM dashboard layout', 'put bulk operations first on my CRM board', 'make the tags panel large on the CRM dashboard', 'hide recent activities on my CRM page', 'reorder my CRM dashboard: saved searches, then groups', 'tags panel first on the CRM board', 'I mostly use saved searches, so put that widget first on my CRM page and hide the chart', 'can you reset my CRM dashboard layout?'],
  }),
];

// ---------------------------------------------------------------- figures

const periodSchema = z.object({ from: z.string(), to: z.string(), days: z.number().int() }).strict();

export const getAnalyticsStatsTool = tools.read('get_analytics_stats', {
  title: 'People analytics stats',
  description: 'Headline people figures for a period (default the last 30 days): total contacts, new contacts against the period before, members, visitors, first visits, unsubscribes, how many have an email or phone, open and overdue follow-ups, active teams, tags and segments. For one figure over any range, platform_analytics_query; for the status breakdown, people_get_contact_stats.',
  keywords: ['people statistics', 'headline numbers', 'crm stats', 'growth'],
  examples: ['how many new people did we add this month', 'give me the headline people numbers', 'people stats for the last 90 days', 'are we adding more contacts than last month', 'how many overdue follow-ups are there', 'what share of our contacts have an email address', 'how many first visits and unsubscribes in the last 30 days', 'headline figures for the PCC: members, visitors, new contacts', 'people numbers this month', 'the PCC meets on Tuesday, give me new contacts, members and visitors compared with last month', 'are we growing?'],
  input: z.object({ days: z.number().int().min(1).max(365).default(30).describe('Length of the period ending today') }),
  output: z.object({
    stats: z.object({
      period: periodSchema, totalContacts: z.number().int(), newContacts: z.number().int(), newContactsPreviousPeriod: z.number().int(),
      members: z.number().int(), visitors: z.number().int(), firstVisits: z.number().int(), unsubscribes: z.number().int(), subscribed: z.number().int(),
      withEmailPercent: z.number().nullable(), withPhonePercent: z.number().nullable(), openFollowUps: z.number().int(), overdueFollowUps: z.number().int(),
      activeGroups: z.number().int(), tags: z.number().int(), segments: z.number().int(),
    }).strict(),
  }).strict(),
  run: async (ctx, input) => ({ stats: await analyticsStats(ctx.db, ctx.org.id, input.days) }),
});

export const getContactStatsTool = tools.read('get_contact_stats', {
  title: 'Contact stats',
  description: 'Live contacts broken down by consent status, Welcome Desk stage and gender, with WhatsApp consent, contacts with no way to reach them, households and soft-deleted records.',
  keywords: ['contact breakdown', 'status counts', 'stage counts', 'gender split'],
  examples: ['break our contacts down by status', 'how many contacts are at each stage', 'how many people have no way to reach them', 'how many households do we have', 'gender split of our contacts', 'how many records are soft deleted', 'how many contacts have opted in to WhatsApp', 'how many people are at each Welcome Desk stage and consent status', 'contacts by status', "for the GDPR review I need how many people we have by consent and how many we can't reach", 'how many men and women are in our records?'],
  input: z.object({}),
  output: z.object({
    stats: z.object({
      total: z.number().int(), byStatus: z.record(z.string(), z.number().int()), byMembershipStatus: z.record(z.string(), z.number().int()),
      byGender: z.record(z.string(), z.number().int()), whatsappConsent: z.number().int(), withNoContactMethod: z.number().int(),
      households: z.number().int(), softDeleted: z.number().int(),
    }).strict(),
  }).strict(),
  run: async (ctx) => ({ stats: await contactStats(ctx.db, ctx.org.id) }),
});

export const getCrmAnalyticsChartTool = tools.read('get_crm_analytics_chart', {
  title: 'CRM analytics chart',
  description: `Daily series for the CRM chart over a period ending today (default 7 days): ${Object.values(CHART_SERIES).join(', ').toLowerCase()}, one point per day (0 on quiet days) with each series' total. The structured output carries the series; the people dashboard widget draws them. Care timeline entries count restricted ones only for a caller holding people:safeguarding.`,
  keywords: ['chart', 'graph', 'trend', 'daily series', 'crm analytics'],
  examples: ['chart new contacts over the last week', 'show the CRM graph for the past 30 days', 'how many people were added each day this week', 'daily trend of first visits and unsubscribes', 'plot activity on the care timeline this fortnight', 'graph of new contacts per day this month', 'daily chart of unsubscribes for the last fortnight', 'line chart of first visits over 14 days', 'new contacts chart', "after the Christmas services I'd like a daily graph of first visits over the last fortnight", 'can I see a trend of unsubscribes day by day?'],
  input: z.object({ days: z.number().int().min(1).max(365).default(7).describe('Days in the period ending today; default 7') }),
  output: z.object({
    period: periodSchema,
    series: z.array(z.object({
      key: z.enum(Object.keys(CHART_SERIES) as [keyof typeof CHART_SERIES]), label: z.string(),
      points: z.array(z.object({ date: z.string(), value: z.number().int() }).strict()), total: z.number().int(),
    }).strict()),
    includesRestricted: z.boolean(),
  }).strict(),
  run: async (ctx, input) => crmChart(ctx.db, ctx.org.id, input.days, canSeeRestricted(ctx.principal)),
});

export const listRecentActivitiesTool = tools.read('list_recent_activities', {
  title: 'Recent activities',
  description: 'What happened lately across everyone\'s care timeline, newest first, each with the person\'s name. Restricted entries only for a caller holding people:safeguarding. For one person, people_get_contact_timeline.',
  keywords: ['activity feed', 'latest activity', 'what happened', 'recent changes', 'going on lately'],
  examples: ['what has happened recently in the CRM', 'show the latest activity feed', 'who was added or updated this week', 'recent goings-on across our people', 'what changed in the last few days', 'latest care timeline entries across the whole church', 'show the last 20 things logged for anyone', 'what pastoral notes went in across all contacts this week', "what's new lately", "I've been off for a few days, what's been logged across everyone since Monday", 'has anything happened in the CRM today?'],
  input: z.object({
    limit: z.number().int().min(1).max(100).default(25),
    days: z.number().int().min(1).max(365).default(30).describe('How far back to look'),
  }),
  output: z.object({
    activities: z.array(z.object({
      id: z.uuid(), contactId: z.uuid(), contactName: z.string(), kind: z.string(), summary: z.string(), occurredAt: z.string(),
      restricted: z.boolean().describe('From a private or confidential record (shown only with people:safeguarding)'),
    }).strict()),
  }).strict(),
  // Showing restricted entries across people is recorded as one access event (the entries' ids; never their words).
  audit: {
    access: (_input, output) => {
      const records = output.activities.filter((activity) => activity.restricted).map((activity) => activity.id);
      return records.length > 0 ? { target: { type: 'care_timeline', id: 'recent_activities' }, records } : null;
    },
  },
  run: async (ctx, input) => ({ activities: await recentActivities(ctx.db, ctx.org.id, { ...input, canSeeRestricted: canSeeRestricted(ctx.principal) }) }),
});

export const getEngagementOverviewTool = tools.read('get_engagement_overview', {
  title: 'Engagement overview',
  description: 'How engaged the organisation\'s people are: active (a care timeline entry in 30 days), cooling (31 to 90) and quiet (none for over 90 days), with the share in a team, tagged, in a segment and subscribed. The definitions come with the answer.',
  keywords: ['engagement', 'active people', 'lapsed', 'quiet contacts'],
  examples: ['how engaged are our people', 'how many people have gone quiet', 'what share of the church is in a team', 'engagement overview for the PCC', 'are people drifting away', 'how many people are active, cooling or quiet', 'share of contacts in a segment or subscribed', 'how many have had no contact for over 90 days', 'engagement numbers', "I'm worried folk have drifted since lockdown, how many are active, cooling or quiet", 'what share of our people are involved in a team?'],
  input: z.object({}),
  output: z.object({
    total: z.number().int(),
    bands: z.object({ active: z.number().int(), cooling: z.number().int(), quiet: z.number().int() }).strict(),
    definitions: z.object({ active: z.string(), cooling: z.string(), quiet: z.string() }).strict(),
    inAGroupPercent: z.number().nullable(), taggedPercent: z.number().nullable(), inASegmentPercent: z.number().nullable(), subscribedPercent: z.number().nullable(),
    includesRestricted: z.boolean(),
  }).strict(),
  run: async (ctx) => engagementOverview(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal)),
});

const personRef = z.object({ contactId: z.uuid(), displayName: z.string() }).strict();

export const getSmartDiscoveriesTool = tools.read('get_smart_discoveries', {
  title: 'Smart discoveries',
  description: 'Things in the people data worth a look, each with its count, the rule that found it, a few of the people and the tool to act with: visitors nobody is following up, people with no way to reach them, members in no team, birthdays this week, contacts with no stage, likely duplicates. Rules, not AI; for AI insights use people_generate_dashboard_ai_insights.',
  keywords: ['discoveries', 'suggestions', 'what needs attention', 'gaps', 'worried', 'problems in our records'],
  examples: ['what should I look at in our people data', 'anything falling through the cracks', 'which visitors has nobody followed up', 'who can we not contact at all', 'members who are not in any team', 'spot problems in the CRM for me', 'what in our people records needs attention', 'anything unusual in our data I ought to know about', 'what patterns should worry me in our people data', "anything I'm missing?", "I've just taken over as administrator, what in the people data needs a look first", 'are there visitors nobody has followed up?'],
  input: z.object({ sampleSize: z.number().int().min(0).max(20).default(5).describe('People named per discovery') }),
  output: z.object({
    discoveries: z.array(z.object({ kind: z.string(), title: z.string(), count: z.number().int(), rule: z.string(), tool: z.string(), sample: z.array(personRef) }).strict()),
  }).strict(),
  run: async (ctx, input) => ({ discoveries: await smartDiscoveries(ctx.db, ctx.org.id, input.sampleSize) }),
});

export const getSmartContentBirthdaysTool = tools.read('get_smart_content_birthdays', {
  title: 'Birthdays (dashboard card)',
  description: 'The dashboard\'s birthday card: contacts whose birthday falls in the next days (default 14), soonest first, with the age they turn. Same rule as people_upcoming_birthdays.',
  keywords: ['birthday card', 'birthdays widget', 'smart content'],
  examples: ['birthdays for the dashboard card', 'birthday shout-outs card on the dashboard', 'the birthday card on the people dashboard', 'dashboard card of birthdays in the next 14 days', 'birthdays widget for the next three weeks', 'fill the birthday panel on the home screen', 'who turns what age soon, for the dashboard card', 'birthday box for the people dashboard, five names', 'dashboard birthdays card', 'the home screen card should show birthdays for the next month, fill it in', 'who goes on the birthday panel this week?'],
  input: z.object({ days: z.number().int().min(1).max(60).default(14), limit: z.number().int().min(1).max(100).default(20) }),
  output: z.object({
    birthdays: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), dateOfBirth: z.string(), nextBirthday: z.string(), turning: z.number().int() }).strict()),
  }).strict(),
  run: async (ctx, input) => ({ birthdays: (await smartBirthdays(ctx.db, ctx.org.id, input.days, input.limit)).map((b) => ({ ...b, dateOfBirth: String(b.dateOfBirth), nextBirthday: String(b.nextBirthday) })) }),
});

export const getSmartContentNewMembersTool = tools.read('get_smart_content_new_members', {
  title: 'New members (dashboard card)',
  description: 'The dashboard\'s new members card: contacts at the member stage whose membership date (else the date they were added) falls in the last days (default 90), newest first.',
  keywords: ['new members', 'recently joined', 'welcome new members'],
  examples: ['who became a member recently', 'new members to welcome in the notices', 'list people who joined as members this quarter', 'new members card for the dashboard', 'new members card: who joined in the last 90 days', 'people who became members since Easter', 'dashboard card of recent new members', 'who has joined the membership in the last month', 'new members card', "for the welcome slot in Sunday's notices, who has become a member in the last two months", 'which new members should be on the dashboard card?'],
  input: z.object({ days: z.number().int().min(1).max(730).default(90), limit: z.number().int().min(1).max(100).default(20) }),
  output: z.object({
    members: z.array(z.object({ contactId: z.uuid(), displayName: z.string(), membershipDate: z.string().nullable(), since: z.string() }).strict()),
  }).strict(),
  run: async (ctx, input) => ({ members: await smartNewMembers(ctx.db, ctx.org.id, input.days, input.limit) }),
});

// ---------------------------------------------------------------- newcomer journey

const stalledSchema = z.object({
  contactId: z.uuid(), displayName: z.string(), stage: z.string(), inJourneySince: z.string(), daysInStage: z.number().int(),
  lastActivityAt: z.string().nullable(), openFollowUps: z.number().int(), reason: z.string(),
}).strict();
const stallDays = z.number().int().min(7).max(365).default(21).describe('Days without progress or activity before a visitor counts as stalled');

export const getIntegrationOverviewTool = tools.read('get_integration_overview', {
  title: 'Integration overview',
  description: 'The newcomer journey (integration) at a glance: how many people are at each stage (first-time visitor → returning visitor → regular attender → member), first visits in 30 days, the share who came back, and how many are stalled. stalled=true also returns the stalled contacts, each with the reason. To open follow-ups for them, people_run_integration_stall_detection.',
  keywords: ['integration', 'newcomer journey', 'assimilation', 'stalled', 'stuck visitors', 'funnel', 'heard nothing since', 'came once'],
  examples: ['how is our newcomer journey going', 'which visitors are stuck and not moving on', 'show the integration funnel', 'who has stalled since their first visit', 'how many first-timers came back', 'list newcomers stuck in the journey', 'how many are first-time visitors, returners, regulars and members', 'share of first-timers who came back in the last 30 days', 'how are newcomers progressing', 'we did a big push at Harvest, how many of those first-timers have become regulars', 'where are newcomers getting stuck?'],
  input: z.object({
    stalled: z.boolean().default(false).describe('true returns the stalled contacts too'),
    stallDays,
    limit: z.number().int().min(1).max(200).default(50),
  }),
  output: z.object({
    funnel: z.array(z.object({ stage: z.enum(JOURNEY_STAGES), contacts: z.number().int() }).strict()),
    firstVisitsLast30Days: z.number().int(), cameBackPercent: z.number().nullable(),
    stallDays: z.number().int(), stalledCount: z.number().int(), stalledRule: z.string(),
    stalled: z.array(stalledSchema).optional(),
  }).strict(),
  run: async (ctx, input) => integrationOverview(ctx.db, ctx.org.id, { ...input, canSeeRestricted: canSeeRestricted(ctx.principal) }),
});

export const runIntegrationStallDetectionTool = tools.write('run_integration_stall_detection', {
  title: 'Run stall detection',
  description: 'Finds newcomers stuck in the journey (the rule of people_get_integration_overview) and, unless openFollowUps is false, opens a Welcome Desk follow-up task for each who has none open. Running it again opens none twice. Returns the stalled contacts with reasons.',
  keywords: ['stall detection', 'stuck newcomers', 'follow up stalled visitors'],
  examples: ['find stuck newcomers and create follow-ups for them', 'run stall detection on the newcomer journey', 'make sure every stalled visitor has a follow-up task', 'chase up visitors who have gone quiet since their first visit', 'open Welcome Desk follow-ups for everyone stalled', 'find newcomers stuck for 60 days and give them a task', 'which newcomers have stalled, without opening tasks', 'check the newcomer journey for stragglers and assign follow-ups', 'find stalled newcomers', 'lots of Easter visitors never came back, find the stuck ones and give the welcome team tasks', 'can you check who has stalled without creating any tasks?'],
  input: z.object({ stallDays, limit: z.number().int().min(1).max(200).default(100), openFollowUps: z.boolean().default(true) }),
  output: z.object({ stallDays: z.number().int(), stalled: z.array(stalledSchema), followUpsOpened: z.number().int(), openedFor: z.array(z.uuid()) }).strict(),
  run: async (ctx, input) => runStallDetection(ctx.db, ctx.org.id, { ...input, canSeeRestricted: canSeeRestricted(ctx.principal) }),
});

export const overviewTools = [
  ...layoutToolList, getAnalyticsStatsTool, getContactStatsTool, getCrmAnalyticsChartTool, listRecentActivitiesTool, getEngagementOverviewTool,
  getSmartDiscoveriesTool, getSmartContentBirthdaysTool, getSmartContentNewMembersTool, getIntegrationOverviewTool, runIntegrationStallDetectionTool,
];
