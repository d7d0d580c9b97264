import { z } from 'zod';
import { bulkOf, calendarDate, toolsFor } from '../../../../kit';
import { canSeeRestricted } from '../../privacy';
import { prayerAnalytics } from '../prayer';
import { countRoster, getCommunitySettings, setCommunityMemberships, setCommunitySettings } from '../roster';
import { countRecentVisits } from '../visits';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

/** How many roster changes one call may carry; the rest go in further calls. */
export const MAX_MEMBERSHIP_CHANGES = 200;
/** How far back the dashboard's "recent visits" look. */
const RECENT_VISIT_DAYS = 30;

export const communitySettingsSchema = z.object({
  prayerWallEnabled: z.boolean(),
  wallModerationRequired: z.literal(true).describe('Always true: nothing reaches the prayer wall or celebrations before a person approves it'),
  celebrationsEnabled: z.boolean(),
  celebratedLifeEventTypes: z.array(z.string()),
  wallPostLifetimeDays: z.number().int(),
  newMemberWindowDays: z.number().int(),
  saved: z.boolean().describe('False while the organisation runs on the defaults'),
}).strict();

const membershipChange = z.object({
  contactId: z.uuid().describe('The contact'),
  member: z.boolean().describe('true adds them to the community roster (or keeps them on it), false records that they left'),
  joinedOn: calendarDate().optional().describe('When they joined (YYYY-MM-DD); today when omitted'),
  celebrationConsent: z.boolean().optional().describe('Whether they agreed to have life events celebrated in front of the congregation'),
});

export const setCommunityMembershipBulkTool = tools.write('set_community_membership_bulk', {
  title: 'Set community roster membership in bulk',
  description: `Adds contacts to the community roster or records that they left, up to ${MAX_MEMBERSHIP_CHANGES} at once, each with an outcome (joined, rejoined, updated, unchanged, left, not_a_member, not_found). Also records consent to have life events celebrated publicly.`,
  keywords: ['community members', 'roster', 'add to community', 'membership', 'bulk roster', 'add many to roster'],
  examples: ['add the new members class to the community roster', 'Tom and Ann have moved away, take them off the roster', 'put all 12 confirmation candidates on the community roster', 'record that the Adams, Hills and Crofts have left', "add these new members and note they're happy to be celebrated", "update the roster with this term's newcomers", 'mark a batch of people as having left the church family', 'join everyone from the welcome course to the community list', 'add everyone confirmed at Pentecost to the roster', 'these eight families have left, record it', 'put the whole newcomers list on the community roster at once', 'import the new members into the roster, all happy to be celebrated'],
  idempotent: true,
  input: z.object({ memberships: bulkOf(membershipChange, MAX_MEMBERSHIP_CHANGES).describe('The changes, one per contact') }),
  output: z.object({
    results: z.array(z.object({ contactId: z.uuid(), outcome: z.enum(['joined', 'rejoined', 'updated', 'unchanged', 'left', 'not_a_member', 'not_found']) }).strict()),
  }).strict(),
  run: async (ctx, input) => ({ results: await setCommunityMemberships(ctx.db, ctx.org.id, input.memberships) }),
});

export const getCommunityDashboardTool = tools.read('get_community_dashboard', {
  title: 'Community dashboard',
  description: 'The community at a glance: roster size, who joined or left recently, consent to celebrations, active and urgent prayer requests, the answered rate and recent pastoral visits. Restricted prayer requests and visits are counted only for callers holding people:safeguarding.',
  keywords: ['community overview', 'church family', 'pastoral overview'],
  examples: ['how is the community doing', 'give me the community numbers', 'how big is our church family now', 'who has joined or left recently and how are prayers going', 'community stats', 'church family numbers at a glance', 'roster size, new joiners and recent visits', 'overview of the community for the PCC', 'community dashboard', "for my vicar's letter I'd like our church family numbers and how prayer requests are going", 'how many people joined us recently?'],
  input: z.object({}),
  output: z.object({
    roster: z.object({
      current: z.number().int(), joinedRecently: z.number().int(), leftRecently: z.number().int(),
      withCelebrationConsent: z.number().int(), windowDays: z.number().int().describe('"Recently" means within this many days (newMemberWindowDays)'),
    }).strict(),
    prayer: z.object({ active: z.number().int(), urgentActive: z.number().int(), answered: z.number().int(), answeredRate: z.number().nullable() }).strict(),
    visits: z.object({ lastDays: z.number().int(), count: z.number().int() }).strict(),
    settings: communitySettingsSchema,
    includesRestricted: z.boolean(),
  }).strict(),
  run: async (ctx) => {
    const sees = canSeeRestricted(ctx.principal);
    const settings = await getCommunitySettings(ctx.db, ctx.org.id);
    const prayer = await prayerAnalytics(ctx.db, ctx.org.id, sees, {});
    return {
      roster: await countRoster(ctx.db, ctx.org.id, settings.newMemberWindowDays),
      prayer: { active: prayer.byStatus.active, urgentActive: prayer.urgentActive, answered: prayer.byStatus.answered, answeredRate: prayer.answeredRate },
      visits: { lastDays: RECENT_VISIT_DAYS, count: await countRecentVisits(ctx.db, ctx.org.id, sees, RECENT_VISIT_DAYS) },
      settings, includesRestricted: sees,
    };
  },
});

export const getCommunitySettingsTool = tools.read('get_community_settings', {
  title: 'Community settings',
  description: 'The community settings: whether the prayer wall and celebrations are on, which life-event types may be celebrated publicly, how long wall posts stay up and what counts as a new member. Moderation of the wall is always required.',
  keywords: ['prayer wall settings', 'celebration settings', 'community settings', 'board settings'],
  examples: ['is the prayer wall switched on', 'which life events do we celebrate publicly', 'how long do prayer wall posts stay up', 'are celebrations turned on', 'what counts as a new member', 'show our prayer wall and celebrations settings', 'which types of news can go on the celebrations board', 'do wall posts need approving', 'what are our community settings', 'how long does someone count as a new member', 'can weddings be celebrated publicly', 'is the celebrations board enabled'],
  input: z.object({}),
  output: z.object({ settings: communitySettingsSchema }).strict(),
  run: async (ctx) => ({ settings: await getCommunitySettings(ctx.db, ctx.org.id) }),
});

export const setCommunitySettingsTool = tools.write('set_community_settings', {
  title: 'Change community settings',
  description: 'Changes community settings; only the fields given change. Moderation of the prayer wall cannot be switched off (wallModerationRequired accepts only true).',
  keywords: ['turn on prayer wall', 'celebrations settings'],
  examples: ['switch off the prayer wall for now', 'also celebrate anniversaries publicly', 'keep prayer wall posts up for four weeks', 'turn celebrations on', 'stop celebrating baptisms publicly', 'count people as new members for six months', 'switch the prayer wall back on', 'add new babies to the things we celebrate publicly', 'turn off celebrations', 'the prayer wall is getting stale, so keep posts for two weeks only', 'can we stop celebrating birthdays publicly?'],
  idempotent: true,
  input: z.object({
    prayerWallEnabled: z.boolean().optional().describe('Whether prayer requests may be shared to the wall'),
    wallModerationRequired: z.literal(true).optional().describe('Always true; false is refused'),
    celebrationsEnabled: z.boolean().optional().describe('Whether life events may be shared as celebrations'),
    celebratedLifeEventTypes: z.array(z.string().trim().max(40).regex(/^[a-z_]{1,40}$/, 'lowercase words joined by underscores')).max(30).optional()
      .describe('Life-event types that may be celebrated publicly, e.g. birth, marriage, baptism, new_job, anniversary'),
    wallPostLifetimeDays: z.number().int().min(1).max(365).optional().describe('Days an approved wall post stays on the wall'),
    newMemberWindowDays: z.number().int().min(1).max(730).optional().describe('Days after joining that someone counts as a new member'),
  }),
  output: z.object({ settings: communitySettingsSchema, changedFields: z.array(z.string()) }).strict(),
  run: async (ctx, input) => {
    const { wallModerationRequired: _alwaysTrue, ...change } = input;
    const { settings, changed } = await setCommunitySettings(ctx.db, ctx.org.id, change);
    return { settings, changedFields: changed };
  },
});

export const communityRosterTools = [setCommunityMembershipBulkTool, getCommunityDashboardTool, getCommunitySettingsTool, setCommunitySettingsTool];
