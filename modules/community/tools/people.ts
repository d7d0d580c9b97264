import { z } from 'zod';
import { notFound, toolsFor } from '../../kit';
import type { ModuleDefinition } from '../../module';
import { canSeeRestricted } from '../../people/api';
import { countRoster, getCommunitySettings, getMembership, listRoster, setCommunityMemberships } from '../../people/api';
import { countBoard } from '../posts';
import { RADAR_REASONS, followUpRadar } from '../radar';

const tools = toolsFor('community', { read: 'community:read', write: 'community:write' });

const rosterMemberSchema = z.object({
  contactId: z.uuid(), name: z.string(), joinedOn: z.string().describe('YYYY-MM-DD'), leftOn: z.string().nullable(), celebrationConsent: z.boolean(),
}).strict();

export const listRosterTool = tools.read('list_roster', {
  title: 'Community roster',
  description: 'Who is on the community roster, newest joiners first, with a total; joinedWithinDays answers "who joined recently", status left lists those who left.',
  keywords: ['members', 'who is in the community', 'new members', 'roster'],
  examples: ['who joined the church family in the last month', 'list everyone on the community roster', 'how many are on the community roster', "who's left the church recently", 'new members in the last 90 days', 'list the church family', 'everyone who has joined this year', 'show the people who are part of the community', 'community roster', 'for the welcome lunch I need everyone who joined the community since September', 'how many people are in our church community?'],
  input: z.object({
    status: z.enum(['current', 'left', 'all']).default('current').describe('current (default), left or all'),
    joinedWithinDays: z.number().int().min(1).max(3650).optional().describe('Only those who joined in the last so many days'),
    limit: z.number().int().min(1).max(200).default(50).describe('How many to return (1 to 200)'),
    offset: z.number().int().min(0).max(100000).default(0).describe('How many to skip, for the next page'),
  }),
  output: z.object({ members: z.array(rosterMemberSchema), total: z.number().int() }).strict(),
  run: async (ctx, input) => listRoster(ctx.db, ctx.org.id, input),
});

export const setRosterMembershipTool = tools.write('set_roster_membership', {
  title: 'Add to or take off the roster',
  description: 'Puts one contact on the community roster (with their consent to public celebrations) or records that they left. For many at once use people_set_community_membership_bulk.',
  keywords: ['join community', 'add member', 'left the church', 'community roster', 'leave community'],
  examples: ['add Priya to the community roster, she is happy to have her news celebrated', 'the Lees have left', 'add Sam to the roster', 'the Patels have joined the church, put them on the roster', 'record that Mary has left the church', 'take Joe off the community roster, he moved away', "welcome Grace as a new member, she's happy for her news to be shared", 'mark Dave as no longer part of the community', 'Ella has joined us, add her to the community roster', 'Ian has moved to another church, record that he left', "put Femi on the roster, he doesn't want his news shared publicly", 'the Bakers are no longer part of our church family'],
  idempotent: true,
  input: z.object({
    contactId: z.uuid().describe('The contact'),
    member: z.boolean().describe('true: on the roster; false: they left'),
    joinedOn: z.iso.date().optional().describe('When they joined (YYYY-MM-DD); today when omitted'),
    celebrationConsent: z.boolean().optional().describe('Whether they agreed to have life events celebrated in front of the congregation'),
  }),
  output: z.object({
    outcome: z.enum(['joined', 'rejoined', 'updated', 'unchanged', 'left', 'not_a_member']),
    member: rosterMemberSchema.nullable(),
  }).strict(),
  run: async (ctx, input) => {
    const [result] = await setCommunityMemberships(ctx.db, ctx.org.id, [input]);
    if (result.outcome === 'not_found') throw notFound('Contact', input.contactId);
    return { outcome: result.outcome, member: (await getMembership(ctx.db, ctx.org.id, input.contactId)) ?? null };
  },
});

const radarItemSchema = z.object({
  contactId: z.uuid(), name: z.string(), reason: z.enum(RADAR_REASONS), detail: z.string(), since: z.string().nullable(),
}).strict();
const radarSourceSchema = z.object({
  source: z.string(), status: z.enum(['included', 'unavailable']), count: z.number().int(), reason: z.string().nullable(),
}).strict();

export function followUpRadarTool(modules: readonly ModuleDefinition[]) {
  return tools.read('get_followup_radar', {
    title: 'Follow-up radar',
    description: 'Who needs following up across the church: welfare checks due, note follow-ups due soon, new members, urgent prayer requests, life events (coming up, unattended, grief touchpoints due), guests whose follow-up is due, regulars who have stopped coming and small group members missing meetings, each with why; sources lists what was read and how many came from each. Private and confidential records count only with people:safeguarding.',
    keywords: ['who needs care', 'follow up', 'pastoral radar', 'who to call', 'who to ring', 'who to visit', 'call list', 'pastoral care list'],
    examples: ['who should I be calling this week', 'who has fallen through the cracks', 'who should the pastoral team ring or visit', 'anyone we have not been in touch with', 'who needs a visit or a phone call', 'which guests and members need following up', 'people we ought to ring this week', 'pastoral to-do: who needs contacting and why', "who hasn't been to church lately and needs a call", 'newcomers, grieving families and urgent prayers needing follow-up', 'pastoral radar', 'with Ray off sick the visiting team is short, who most needs a call or visit this week?'],
    input: z.object({
      withinDays: z.number().int().min(0).max(90).default(7).describe('Note follow-ups and life events due within this many days (and overdue ones)'),
      limitPerSource: z.number().int().min(1).max(100).default(25).describe('At most this many people per source'),
    }),
    output: z.object({
      items: z.array(radarItemSchema),
      sources: z.array(radarSourceSchema),
      welfareIntervalDays: z.number().int(),
      newMemberWindowDays: z.number().int(),
      includesRestricted: z.boolean(),
    }).strict(),
    run: async (ctx, input) => {
      const sees = canSeeRestricted(ctx.principal);
      const radar = await followUpRadar(ctx.db, ctx.org.id, { canSeeRestricted: sees, withinDays: input.withinDays, limitPerSource: input.limitPerSource, modules });
      return { ...radar, includesRestricted: sees };
    },
  });
}

export const getSummaryTool = tools.read('get_summary', {
  title: 'Community summary',
  description: 'The congregation-facing side at a glance: roster size and recent joiners, posts waiting for moderation, prayers on the wall, answered prayers and approved celebrations, and whether the wall and celebrations are switched on.',
  keywords: ['community overview', 'prayer wall status'],
  examples: ['how is the prayer wall doing', 'anything for me to moderate', 'prayer wall and celebrations at a glance', 'how many posts are waiting for moderation', 'how many prayers are on the wall and how many answered', 'is the celebrations board switched on and busy', 'quick overview of the community board', 'how many new joiners and approved celebrations', 'community board summary', 'before the staff meeting, give me the roster size, moderation backlog and prayer wall figures', 'how busy is the prayer wall this month?'],
  input: z.object({}),
  output: z.object({
    roster: z.object({ current: z.number().int(), joinedRecently: z.number().int(), leftRecently: z.number().int(), withCelebrationConsent: z.number().int(), windowDays: z.number().int() }).strict(),
    board: z.object({ pending: z.number().int(), prayerOnWall: z.number().int(), celebrationsApproved: z.number().int(), answered: z.number().int() }).strict(),
    prayerWallEnabled: z.boolean(),
    celebrationsEnabled: z.boolean(),
  }).strict(),
  run: async (ctx) => {
    const settings = await getCommunitySettings(ctx.db, ctx.org.id);
    return {
      roster: await countRoster(ctx.db, ctx.org.id, settings.newMemberWindowDays),
      board: await countBoard(ctx.db, ctx.org.id),
      prayerWallEnabled: settings.prayerWallEnabled, celebrationsEnabled: settings.celebrationsEnabled,
    };
  },
});
