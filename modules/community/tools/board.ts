import { z } from 'zod';
import { toolsFor } from '../../kit';
import type { ToolContext } from '../../tool';
import {
  approvePost, listCelebrations, listModerationQueue, listPrayerWall, markPrayerAnswered, recordPrayer, rejectPost,
  removePost, requirePost, shareCelebration, sharePrayerRequest,
} from '../posts';
import { POST_KINDS, SHOW_NAME, celebrationItemSchema, postSchema, wallItemSchema, type PostView } from '../schemas';

const tools = toolsFor('community', { read: 'community:read', write: 'community:write' });
const userOf = (ctx: ToolContext) => ctx.principal.userId;

const postId = z.uuid().describe('The post');
const showName = z.enum(SHOW_NAME).default('first_name').describe('first_name (default) shows their first name on the board; anonymous shows "Anonymous"');
const consent = z.literal(true).describe('Confirms the person agreed to this being shared with the congregation; the call is refused without it');
const limit = z.number().int().min(1).max(100).default(50).describe('How many to return (1 to 100)');

function wallItem(post: PostView) {
  return {
    id: post.id, displayName: post.displayName, body: post.body, status: post.status as 'approved' | 'answered', approvedAt: post.decidedAt!,
    answeredAt: post.answeredAt, answerNote: post.answerNote, prayedCount: post.prayedCount,
  };
}

export const sharePrayerRequestTool = tools.write('share_prayer_request', {
  title: 'Share a prayer request to the wall',
  description: 'Puts a prayer request (visibility congregation, confidentiality green, active) into the moderation queue for the prayer wall, with the person\'s consent. Nothing appears on the wall until someone approves it with community_approve_post.',
  keywords: ['prayer wall', 'share prayer', 'public prayer request'],
  examples: ['Margaret is happy for the church to pray for her operation, put it on the prayer wall', "share Tom's prayer request with the whole church", "put the Khans' request on the prayer wall, they're happy for it to be public", "send John's prayer request off for moderation", "post the prayer for Jean's recovery to the wall", "can Margaret's request go up for the congregation to see", 'submit a prayer request to the church prayer board', "put Doris's prayer on the wall", "Ray's surgery is on Thursday and he's happy for everyone to pray, so share his request on the wall", "can Colin's prayer request go up on the prayer wall?"],
  input: z.object({
    prayerRequestId: z.uuid().describe('The prayer request to share'),
    consentConfirmed: consent,
    wallText: z.string().trim().min(1).max(2000).optional().describe('The words the congregation will read, if different from the request (e.g. shorter, fewer details)'),
    showName,
  }),
  output: z.object({ post: postSchema }).strict(),
  run: async (ctx, input) => ({ post: await sharePrayerRequest(ctx.db, ctx.org.id, userOf(ctx), input) }),
});

export const shareCelebrationTool = tools.write('share_celebration', {
  title: 'Share a life event as a celebration',
  description: 'Puts a life event the person agreed to share (shareWithCommunity, a celebrate intent, a type the settings celebrate publicly, never private or confidential) into the moderation queue for the celebrations board.',
  keywords: ['celebrate', 'congratulations', 'good news', 'celebration board'],
  examples: ['share the Smiths\' new baby with the church', 'put the wedding on the celebrations board', "put the Okafors' new baby on the good news board", "share Emma's baptism with the congregation", 'the Lees are happy for their golden wedding to be celebrated, post it', "submit Ben's graduation for the celebrations board", 'let the church know about the engagement', "celebrate Tom's new job publicly", "share the Nolans' anniversary", 'Hannah passed her nursing exams and is happy for the church to know, post it as good news', "can we celebrate Ray's 90th birthday on the board?"],
  input: z.object({
    lifeEventId: z.uuid().describe('The life event to celebrate'),
    consentConfirmed: consent,
    message: z.string().trim().min(1).max(2000).optional().describe('The words the congregation will read; the life event\'s title when omitted'),
    showName,
  }),
  output: z.object({ post: postSchema }).strict(),
  run: async (ctx, input) => ({
    post: await shareCelebration(ctx.db, ctx.org.id, userOf(ctx), input),
  }),
});

export const listModerationQueueTool = tools.read('list_moderation_queue', {
  title: 'Posts waiting for moderation',
  description: 'Prayer requests and celebrations shared with the congregation that nobody has approved or rejected yet, oldest first, with exactly the text that would appear.',
  keywords: ['moderation', 'pending posts', 'approve prayer wall'],
  examples: ['anything waiting to go on the prayer wall', 'what needs moderating', 'show pending prayer wall posts', 'which celebrations are waiting for approval', 'posts waiting for someone to okay them', 'anything in the moderation queue', "what's been submitted to the wall but not approved yet", 'list unapproved posts, oldest first', 'moderation queue', "I'm covering for Sue this week, which prayer and celebration posts are waiting for me to check?", 'is anything waiting for approval on the board?'],
  input: z.object({ kind: z.enum(POST_KINDS).optional().describe('Only prayer or only celebration posts'), limit }),
  output: z.object({ posts: z.array(postSchema) }).strict(),
  run: async (ctx, input) => ({ posts: await listModerationQueue(ctx.db, ctx.org.id, input) }),
});

export const approvePostTool = tools.write('approve_post', {
  title: 'Approve a post for the board',
  description: 'Approves a pending prayer-wall or celebration post so the congregation sees it. Refused if it was already decided or its source is no longer shareable (made private, consent withdrawn).',
  keywords: ['approve', 'moderate', 'publish to wall'],
  examples: ['approve Margaret\'s prayer request for the wall', 'approve the post about the new baby', 'okay the pending prayer request for Tom', 'publish the wedding celebration to the board', "let the Khans' prayer go up on the wall", 'that celebration looks fine, approve it', 'accept the waiting prayer wall post', "approve Doris's post", "I've read Ray's prayer request and it's fine to share, let it go up on the wall", 'can you publish the waiting anniversary celebration?'],
  input: z.object({ postId }),
  output: z.object({ post: postSchema }).strict(),
  run: async (ctx, input) => ({ post: await approvePost(ctx.db, ctx.org.id, userOf(ctx), input.postId) }),
});

export const rejectPostTool = tools.write('reject_post', {
  title: 'Reject a post',
  description: 'Rejects a pending prayer-wall or celebration post with a reason; it never appears. The prayer request or life event itself is unchanged.',
  keywords: ['reject', 'decline post', 'moderate', 'do not publish', 'refuse'],
  examples: ['don\'t put that on the wall, it has too many medical details', 'do not publish that prayer request', 'turn down that post', "reject the celebration post, the family didn't want it public", "don't approve the prayer post, it names someone else", 'knock back that wall post', 'refuse the pending post, reason: too personal', "decline the new baby post, it's a duplicate", "that prayer post isn't suitable, reject it", 'reject that post', 'the request about Ray mentions his diagnosis in detail, so decline it with that reason', 'can we stop this celebration post being published?'],
  input: z.object({ postId, reason: z.string().trim().min(1).max(1000).describe('Why, for whoever shared it') }),
  output: z.object({ post: postSchema }).strict(),
  run: async (ctx, input) => ({ post: await rejectPost(ctx.db, ctx.org.id, userOf(ctx), input.postId, input.reason) }),
});

export const listPrayerWallTool = tools.read('list_prayer_wall', {
  title: 'The prayer wall',
  description: 'What the congregation sees on the prayer wall: approved prayer requests (and answered ones, as praise) within the wall\'s lifetime, newest first. Only requests shared with consent and approved; never private or confidential ones.',
  keywords: ['prayer wall', 'prayer list for the church', 'praise reports'],
  examples: ['what is on the prayer wall this week', 'read me the prayer wall for Sunday', 'show me the prayer wall', 'what prayers can the congregation see', 'list answered prayers on the wall', "what's on the public prayer board right now", 'prayer wall items for the newsletter', 'current praise reports on the prayer wall', 'prayer wall list', "I'm leading intercessions on Sunday, what prayer requests are on the wall right now?", 'what can people see on the prayer wall?'],
  input: z.object({ limit }),
  output: z.object({ enabled: z.boolean(), lifetimeDays: z.number().int(), items: z.array(wallItemSchema) }).strict(),
  run: async (ctx, input) => {
    const wall = await listPrayerWall(ctx.db, ctx.org.id, input.limit);
    return { ...wall, items: wall.items.map(wallItem) };
  },
});

export const listCelebrationsTool = tools.read('list_celebrations', {
  title: 'Celebrations board',
  description: 'Approved celebrations of life events (births, weddings, baptisms…) the people agreed to share, newest first; an event made private or whose consent was withdrawn drops off.',
  keywords: ['celebrations', 'good news', 'congratulations', 'celebrations board', 'happy news'],
  examples: ['what good news can we share on Sunday', 'show the celebrations board', 'recent births and weddings we can announce', "what's on the good news board", 'list approved celebrations this month', 'any happy news for the notices', 'celebrations the congregation can see', 'any new babies or weddings on the celebrations board', 'which celebrations have been approved recently', 'read me the good news we can share in the newsletter', 'what are we celebrating as a church this week'],
  input: z.object({ limit }),
  output: z.object({ enabled: z.boolean(), items: z.array(celebrationItemSchema) }).strict(),
  run: async (ctx, input) => {
    const board = await listCelebrations(ctx.db, ctx.org.id, input.limit);
    return {
      enabled: board.enabled,
      items: board.items.map((post) => ({ id: post.id, displayName: post.displayName, body: post.body, eventType: post.eventType!, eventDate: post.eventDate, approvedAt: post.decidedAt! })),
    };
  },
});

export const markPrayerAnsweredTool = tools.write('mark_prayer_answered', {
  title: 'Mark a wall prayer answered',
  description: 'Marks a prayer on the wall answered, with an optional praise note the congregation sees, and marks the prayer request itself answered. Marking it again changes nothing.',
  keywords: ['answered prayer', 'praise report'],
  examples: ['Margaret\'s operation went well, mark her prayer answered on the wall', 'Tom got the job, mark his wall prayer answered', 'mark the prayer for rain answered with a praise note', "the Khans' baby arrived safely, update the wall as answered", 'add praise to the prayer wall post, Jean is home from hospital', 'answered prayer on the wall for the Smiths', 'mark that wall post as answered', "Ray's prayer answered", "Doris's scan came back clear, so mark her wall prayer answered with a note of thanks", "can we show Hannah's prayer as answered on the wall?"],
  idempotent: true,
  input: z.object({ postId, answerNote: z.string().trim().min(1).max(2000).optional().describe('How it was answered, as the congregation will read it') }),
  output: z.object({ post: postSchema }).strict(),
  timeline: (_input, output) => [{
    contactId: output.post.contactId, kind: 'prayer_answered', sourceKind: 'prayer_request', sourceId: output.post.prayerRequestId!,
    summary: 'Prayer request marked answered', occurredAt: output.post.answeredAt ?? undefined, restricted: false,
  }],
  run: async (ctx, input) => ({ post: await markPrayerAnswered(ctx.db, ctx.org.id, input.postId, input.answerNote) }),
});

export const removePostTool = tools.write('remove_post', {
  title: 'Take a post off the board',
  description: 'Removes a prayer-wall or celebration post (pending, approved or answered) so the congregation no longer sees it, e.g. when the person asks. The prayer request or life event itself stays.',
  keywords: ['remove from wall', 'take down', 'withdraw'],
  examples: ['John asked for his request to come off the prayer wall', "take the Okafors' baby news down", "remove Jean's request from the wall, she's asked us to", 'pull the wedding celebration off the board', 'delete the post from the prayer wall', 'she changed her mind, take her post off the celebrations', 'take down the old prayer post', "take Ray's post down", "Doris's daughter rang and asked that her mum's request comes off the wall, please remove it", 'can you remove the anniversary post from the board?'],
  destructive: true,
  idempotent: true,
  input: z.object({ postId, reason: z.string().trim().min(1).max(1000).optional().describe('Why it was removed') }),
  output: z.object({ post: postSchema }).strict(),
  run: async (ctx, input) => ({ post: await removePost(ctx.db, ctx.org.id, input.postId, input.reason) }),
});

export const recordPrayerTool = tools.write('record_prayer', {
  title: 'Record a prayer for a wall post',
  description: 'Counts one prayer said for a request on the prayer wall ("I prayed for this"); every call adds one, including calls at the same moment.',
  keywords: ['prayed', 'i prayed', 'prayer count'],
  examples: ['the prayer meeting prayed for Margaret\'s request', "I prayed for Jean's request", "add one to the prayer count on Tom's wall post", "mark that I've prayed for this", "the home group prayed for the Khans' request", 'log a prayer for the request about the flood', 'count my prayer for Margaret', 'I prayed for Ray', "our Tuesday prayer group prayed for Doris's request tonight, add that to its count", "can you log that I've prayed for Hannah's request?"],
  input: z.object({ postId }),
  output: z.object({ postId: z.uuid(), prayedCount: z.number().int() }).strict(),
  run: async (ctx, input) => {
    const post = await recordPrayer(ctx.db, ctx.org.id, input.postId);
    return { postId: post.id, prayedCount: post.prayedCount };
  },
});

export const getPostTool = tools.read('get_post', {
  title: 'Get a board post',
  description: 'One prayer-wall or celebration post with its status and moderation history (who decided, why rejected, answered).',
  keywords: ['post details', 'moderation status', 'wall post', 'post history'],
  examples: ['was the prayer request for the Browns approved', 'why was the celebration post rejected', 'who approved the prayer for Tom', 'status of the post about the baptism', "is Jean's wall post still pending", 'show the moderation history for that post', 'has the wedding post been published', "has anyone approved the post about Ella's christening", 'what happened to the prayer wall post for Ian', 'who rejected the wedding post and why', 'is the prayer post for the Clarks marked answered'],
  input: z.object({ postId }),
  output: z.object({ post: postSchema }).strict(),
  run: async (ctx, input) => ({ post: await requirePost(ctx.db, ctx.org.id, input.postId) }),
});

export const boardTools = [
  sharePrayerRequestTool, shareCelebrationTool, listModerationQueueTool, approvePostTool, rejectPostTool, listPrayerWallTool,
  listCelebrationsTool, markPrayerAnsweredTool, removePostTool, recordPrayerTool, getPostTool,
];
