import { z } from 'zod';
import { calendarDate, cursorInput, cursorOutput, toolsFor } from '../../kit';
import { exactlyOne, type AnyTool } from '../../tool';
import { positiveMinorUnits } from '../money';
import {
  PLEDGE_PERIODS, campaignProgress, campaignProgressSchema, campaignSchema, cancelPledge, closeCampaign, createCampaign, createPledge,
  getPledge, listCampaigns, listPledges, pledgeSchema,
} from '../pledges';
import { RECURRING_FREQUENCIES, occurrencesBetween } from '../recurring/calendar';
import {
  RECURRING_METHODS, cancelRecurringGift, createRecurringGift, getRecurringGift, listRecurringGifts, pauseRecurringGift,
  recurringGiftSchema, resumeRecurringGift, updateRecurringGift,
} from '../recurring/gifts';
import { checkRefund, listRefunds, refundDonation, refundStanding, refundStandingSchema, refundViewSchema } from '../refunds';

const tools = toolsFor('giving', { read: 'giving:read', write: 'giving:write' });

const isoDate = calendarDate();
const reason = z.string().trim().min(1).max(500);
const actionSummary = z.string().trim().max(500).optional().describe('Plain-English summary of why, kept in the audit log (and shown to the approver of a proposal)');

// ---------------------------------------------------------------- refunds

const refundInput = z.object({
  donationId: z.uuid(),
  fundId: z.uuid().optional().describe('The designation (fund part) refunded; needed with amount when the gift is split across funds'),
  amount: positiveMinorUnits.optional().describe('Minor units to return (1250 is 12.50); leave out to refund everything still refundable'),
  reason: reason.describe('Why the money is returned (kept with the refund)'),
  refundedOn: isoDate.optional().describe('The day the money was returned (YYYY-MM-DD); today when left out'),
  actionSummary,
}).strict();

const refundDonationTool = tools.write('refund_donation', {
  title: 'Refund a donation (needs approval)',
  description: 'Returns money from a committed donation, per designation (fund part): the refunded total of a designation never passes what was given to it. Leave amount out to refund everything still refundable. Every refund needs a person: the call creates a proposal for an owner or admin, and the refund is made when they approve it (platform_approve_proposal). A Gift Aid amount already claimed on the gift is reversed on the next claim. Only donations in committed batches can be refunded; correct an uncommitted one in its batch instead.',
  keywords: ['refund', 'return money', 'chargeback', 'reverse gift', 'repay'],
  examples: ['give back the £50 that was given by mistake', 'the card gift was disputed, return the money', "refund Tom's £200 gift, he gave it twice", 'pay back the donation that came from the wrong account', 'the bank charged back a card gift, reverse it', 'return £30 of a £100 gift to the giver', "a widow asked for her late husband's gift back", "refund the whole of Sarah's banked donation", 'refund a gift', 'Beth was charged twice by card last Sunday, so give her the second £25 back', 'can we return money to a donor who gave by mistake?'],
  destructive: true,
  input: refundInput,
  output: z.object({
    refunds: z.array(refundViewSchema),
    donation: refundStandingSchema,
    giftAidReversal: z.enum(['none', 'next_claim']).describe('next_claim: Gift Aid already claimed on this gift is reversed by the next claim'),
  }).strict(),
  approval: {
    kind: 'gated',
    when: {
      reason: 'every refund is approved by an owner or admin',
      // Always applies. Asking it first refuses, before any proposal exists, a refund that could
      // only fail when approved: a missing or foreign donation, an uncommitted one, too large an amount.
      applies: async (args, { db, orgId }) => {
        await checkRefund(db, orgId, refundInput.parse(args));
        return true;
      },
    },
  },
  // Gated calls answer with a proposal to follow, so they can run as MCP tasks.
  task: {},
  // The audit trail keeps the gift's refunded and refundable totals before and after.
  audit: {
    target: (input) => ({ type: 'donation', id: input.donationId }),
    before: async (db, orgId, input) => {
      const { standing } = await refundStanding(db, orgId, input.donationId, false);
      return { refunded: standing.refunded, refundable: standing.refundable };
    },
    after: (input, output) => ({ refunded: output.donation.refunded, refundable: output.donation.refundable, reason: input.reason }),
    money: (_input, output) => ({ amountMinor: output.refunds.reduce((sum, refund) => sum + refund.amount, 0), currency: output.donation.currency }),
  },
  run: async (ctx, input) => {
    const { refunds, standing } = await refundDonation(ctx.db, ctx.org.id, input, ctx.principal.userId);
    const claimed = standing.giftAidStatus === 'claimed' || standing.giftAidStatus === 'in_claim';
    return { refunds, donation: standing, giftAidReversal: claimed ? 'next_claim' as const : 'none' as const };
  },
});

const listRefundsTool = tools.read('list_refunds', {
  title: 'List refunds',
  description: 'Refunds made, newest first, optionally for one donation or fund or between dates (refund date); page with nextCursor. giving_refund_donation makes one.',
  keywords: ['refunds', 'returned gifts'],
  examples: ['which gifts have we returned this year', 'money we have paid back to givers', 'all refunds from the building fund', 'refunds made since April', "show the refunds on Tom's gift", 'how much have we given back this quarter', 'list the chargebacks', 'refund history for last year', 'recent refunds', 'the auditor wants every refund from the general fund last year', 'have we refunded anything this month?'],
  input: z.object({
    ...cursorInput,
    donationId: z.uuid().optional(),
    fundId: z.uuid().optional(),
    from: isoDate.optional().describe('Refunded on or after (YYYY-MM-DD)'),
    to: isoDate.optional().describe('Refunded on or before (YYYY-MM-DD)'),
  }),
  output: z.object({ refunds: z.array(refundViewSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listRefunds(ctx.db, ctx.org.id, input),
});

// ---------------------------------------------------------------- pledge campaigns and pledges

const campaignId = z.uuid().describe('The pledge campaign');
const pledgeId = z.uuid().describe('The pledge');

const createCampaignTool = tools.write('create_pledge_campaign', {
  title: 'Create a pledge campaign',
  description: 'Starts a pledge campaign (a building project, a mission appeal) towards one fund, with an optional goal in minor units and dates. Givers then pledge to it with giving_create_pledge; giving_get_pledge_progress shows how it is going.',
  keywords: ['appeal', 'capital campaign', 'building fund', 'pledge drive'],
  examples: ['launch an appeal to raise £50,000 for the hall', 'set up a building project people can promise towards', 'start a pledge campaign for the new church roof, target £120,000', 'create an appeal towards the missions fund running until Christmas', "we're raising money for a minibus, set up the campaign", 'new capital campaign for the hall extension', 'set up a promise drive for the organ restoration', 'open a mission appeal with a £10k goal', 'new appeal', 'the PCC approved the bell tower repairs at £80,000, set up a pledge campaign for it', 'can you start a campaign people can pledge to for the new kitchen?'],
  input: z.object({
    name: z.string().trim().min(1).max(200),
    fundId: z.uuid().describe('The fund gifts towards this campaign go to'),
    goalAmount: positiveMinorUnits.optional().describe('The target in minor units'),
    startsOn: isoDate.optional().describe('YYYY-MM-DD; today when left out'),
    endsOn: isoDate.optional().describe('YYYY-MM-DD; periodic pledges run to it unless they give their own end'),
  }),
  output: z.object({ campaign: campaignSchema }).strict(),
  run: async (ctx, input) => ({ campaign: await createCampaign(ctx.db, ctx.org, input) }),
});

const listCampaignsTool = tools.read('list_pledge_campaigns', {
  title: 'List pledge campaigns',
  description: 'Pledge campaigns, newest first, each with its progress (pledged, received net of refunds, against its goal); page with nextCursor.',
  keywords: ['appeals', 'campaigns'],
  examples: ['which appeals are running and how close are they to target', 'our fundraising campaigns', 'list our appeals and their progress', 'what campaigns have we run', 'show all pledge drives', 'which appeals are open and which are closed', 'current fundraising appeals and how much is promised', 'every campaign with its goal', 'all appeals', 'for the annual meeting report I need each fundraising campaign and how much is pledged', 'which pledge campaigns are still open?'],
  input: z.object({ ...cursorInput, status: z.enum(['active', 'closed']).optional() }),
  output: z.object({ campaigns: z.array(campaignProgressSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listCampaigns(ctx.db, ctx.org.id, input),
});

const closeCampaignTool = tools.write('close_pledge_campaign', {
  title: 'Close a pledge campaign',
  description: 'Closes a campaign to new pledges. Its pledges and their gifts stay, and progress still counts gifts linked to them.',
  examples: ['the hall appeal has ended, stop taking promises', 'no more pledges for the organ appeal', 'close the roof appeal', 'end the minibus campaign to new promises', 'the organ appeal has reached target, close it', 'stop accepting pledges for the mission drive', 'wrap up the building campaign', 'finish the hall appeal now the deadline has passed', 'close the bell appeal', 'the kitchen appeal deadline was last Sunday, so stop new pledges to it', "can we shut the campaign now we've hit the target?"],
  input: z.object({ campaignId }),
  output: z.object({ campaign: campaignSchema }).strict(),
  run: async (ctx, input) => ({ campaign: await closeCampaign(ctx.db, ctx.org.id, input.campaignId) }),
});

const createPledgeTool = tools.write('create_pledge', {
  title: 'Record a pledge',
  description: 'Records a giver\'s pledge to a campaign: an amount in minor units once (one_off) or every week, month, quarter or year until its end date (its own, or the campaign\'s). Link gifts to it with pledgeId when recording donations; progress counts linked gifts in committed batches, net of refunds.',
  keywords: ['pledge', 'promise to give', 'commitment'],
  examples: ['the Browns have promised £20 a month to the appeal', 'Tom promised £500 to the building project', 'record a pledge of £1,000 from the Smiths for the roof', 'Jenny pledged £10 a week to the hall appeal until December', 'add a promise from Raj of £250 a quarter', 'the youth group pledged £300 to the mission appeal', 'Mr Brown promises to give £100 every month for two years', 'log a one-off pledge of £5,000', 'record a pledge', "Colin said after the service he'll give £40 a month to the bell appeal until 2027", "can you add Beth's promise of £300 to the kitchen appeal?"],
  input: z.object({
    campaignId,
    contactId: z.uuid().describe('The giver (a contact)'),
    amount: positiveMinorUnits.describe('Minor units per period, or in all for one_off'),
    period: z.enum(PLEDGE_PERIODS).default('one_off'),
    startsOn: isoDate.optional().describe('YYYY-MM-DD; left out: today, or the campaign\'s start when today is outside its dates'),
    endsOn: isoDate.optional().describe('YYYY-MM-DD, periodic pledges only; the campaign\'s end when left out'),
    spansFunds: z.boolean().default(false).describe("A promise to the church's work as a whole: gifts to any fund may be linked. Otherwise only gifts to the campaign's fund"),
  }),
  output: z.object({ pledge: pledgeSchema }).strict(),
  run: async (ctx, input) => ({ pledge: await createPledge(ctx.db, ctx.org, input) }),
});

const listPledgesTool = tools.read('list_pledges', {
  title: 'List pledges',
  description: 'Pledges, newest first, each with its progress, optionally for one campaign, one giver or one status; page with nextCursor.',
  examples: ['who has promised money to the hall appeal', 'pledges that are behind', 'all pledges to the roof appeal', 'what has Jenny pledged', 'which promises have been cancelled', "show active pledges and how they're going", 'list everyone who pledged to the organ appeal', 'pledges that are fully paid', 'list pledges', "I'm writing thank-yous for the bell appeal, who has pledged to it?", 'which pledges are behind schedule?'],
  input: z.object({
    ...cursorInput,
    campaignId: campaignId.optional(),
    contactId: z.uuid().optional().describe('Only this giver\'s pledges'),
    status: z.enum(['open', 'fulfilled', 'cancelled']).optional(),
  }),
  output: z.object({ pledges: z.array(pledgeSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listPledges(ctx.db, ctx.org.id, input),
});

const cancelPledgeTool = tools.write('cancel_pledge', {
  title: 'Cancel a pledge',
  description: 'Cancels a pledge the giver withdrew: it no longer counts towards what the campaign was promised, and no new gift can be linked to it. Gifts already given stay counted as received.',
  examples: ['Mark can no longer keep his promise to the appeal', "withdraw a family's pledge", 'the Greens have withdrawn their pledge', "cancel Jenny's £10 a week promise", 'remove a pledge that was withdrawn', "he's lost his job, take his pledge off the appeal", "scrap the Nelsons' promise to the building project", "cancel the Khans' pledge to the roof campaign", 'cancel a pledge', "Colin's had to withdraw his bell appeal promise after retiring, cancel it", "can I take back a pledge someone can't keep?"],
  input: z.object({ pledgeId, actionSummary }),
  output: z.object({ pledge: pledgeSchema }).strict(),
  run: async (ctx, input) => ({ pledge: await cancelPledge(ctx.db, ctx.org.id, input.pledgeId) }),
});

const getPledgeProgressTool = tools.read('get_pledge_progress', {
  title: 'Pledge progress',
  description: 'How a pledge or a whole campaign is going: promised in all, expected by today, received (linked gifts in committed batches, net of refunds), outstanding, and percentages of the goal and of what was pledged (whole numbers, rounded down). Give pledgeId or campaignId.',
  keywords: ['pledge progress', 'campaign total', 'how much pledged', 'appeal progress'],
  examples: ['how much of what was promised has actually come in', "how far are we from the appeal's goal", 'how is the roof appeal going', "how much is still outstanding on the Smiths' pledge", 'percentage of the hall target reached so far', 'is Tom on track with his promise', 'what should have come in by now on the organ appeal', 'received versus promised for the mission campaign', 'appeal progress', 'the PCC meets Thursday, how much of the bell appeal has come in against what was promised?', 'is Beth keeping up with her pledge?'],
  input: z.object({ pledgeId: pledgeId.optional(), campaignId: campaignId.optional() }).refine(...exactlyOne('pledgeId', 'campaignId')),
  output: z.object({ campaign: campaignProgressSchema, pledge: pledgeSchema.nullable() }).strict(),
  run: async (ctx, input) => {
    const pledge = input.pledgeId ? await getPledge(ctx.db, ctx.org.id, input.pledgeId) : null;
    return { campaign: await campaignProgress(ctx.db, ctx.org.id, pledge?.campaignId ?? input.campaignId!), pledge };
  },
});

// ---------------------------------------------------------------- recurring gifts

const recurringGiftId = z.uuid().describe('The recurring gift');
const giftOutput = z.object({ gift: recurringGiftSchema }).strict();

const createRecurringGiftTool = tools.write('create_recurring_gift', {
  title: 'Set up a recurring gift',
  description: 'Records a giver\'s regular gift (standing order, card or online subscription): an amount in minor units to one fund weekly, fortnightly, monthly, quarterly or yearly, counted from startsOn. Each occurrence is recorded as a donation on its date by the scheduled run, into a committed batch "Recurring gifts <date>", exactly once. Occurrences before today are never recorded. On a day the month lacks (the 31st), the gift falls on the month\'s last day.',
  keywords: ['standing order', 'direct debit', 'subscription', 'regular giving', 'monthly gift'],
  examples: ['Anne has set up a standing order of £30 a month', 'record a new direct debit to the general fund', 'set up £15 a week from Jack by standing order', 'Lucy gives £50 every quarter by card', 'new monthly direct debit of £25 to missions starting 1 May', 'add a yearly gift of £500 from the Trust', 'record a fortnightly regular offering from the Ahmeds', "she's giving £10 a month online from next week", 'add a standing order', "Colin's bank confirmed a £20 monthly standing order to the general fund from 1 June, record it", "can you set up Beth's new weekly giving?"],
  input: z.object({
    contactId: z.uuid().describe('The giver (a contact)'),
    fundId: z.uuid(),
    amount: positiveMinorUnits.describe('Minor units per occurrence'),
    method: z.enum(RECURRING_METHODS),
    frequency: z.enum(RECURRING_FREQUENCIES),
    startsOn: isoDate.optional().describe('YYYY-MM-DD, the date every occurrence is counted from; today when left out'),
  }),
  output: giftOutput,
  run: async (ctx, input) => ({ gift: await createRecurringGift(ctx.db, ctx.org, input) }),
});

const listRecurringGiftsTool = tools.read('list_recurring_gifts', {
  title: 'List recurring gifts',
  description: 'Recurring gifts, newest first, with status, next date and how many occurrences were recorded; filter by status, giver or fund; page with nextCursor.',
  keywords: ['standing orders', 'regular givers', 'subscriptions'],
  examples: ['who gives regularly by standing order', 'list the monthly direct debits', 'all the paused standing orders', 'which regular gifts go to the building fund', 'does Bill have a standing order', 'list active direct debits and their next dates', 'who gives every month', 'cancelled regular gifts this year', 'standing orders', "I'm reconciling against the bank, show me all active regular gifts and their next dates", 'who has a paused direct debit?'],
  input: z.object({
    ...cursorInput,
    status: z.enum(['active', 'paused', 'cancelled']).optional(),
    contactId: z.uuid().optional().describe('Only this giver\'s gifts'),
    fundId: z.uuid().optional(),
  }),
  output: z.object({ gifts: z.array(recurringGiftSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listRecurringGifts(ctx.db, ctx.org.id, input),
});

const UPCOMING = 5;
const getRecurringGiftTool = tools.read('get_recurring_gift', {
  title: 'Get a recurring gift',
  description: `One recurring gift with its next ${UPCOMING} dates (none when cancelled, or paused without a resume date).`,
  examples: ["when is Anne's next standing order due", 'details of one regular gift', "next five dates for Jack's weekly gift", "show Lucy's quarterly card gift", "how many payments have been recorded on the Ahmeds' standing order", "is Sue's direct debit paused", "when does Bill's regular gift resume", 'amount and fund for this standing order', "Colin's standing order", 'Beth rang asking when her next monthly gift is recorded, show her regular gift', "what's the amount on the Nolans' direct debit?"],
  input: z.object({ recurringGiftId }),
  output: z.object({ gift: recurringGiftSchema, upcoming: z.array(z.string()) }).strict(),
  run: async (ctx, input) => {
    const gift = await getRecurringGift(ctx.db, ctx.org.id, input.recurringGiftId);
    const upcoming = gift.nextOn ? occurrencesBetween(gift.startsOn, gift.frequency, gift.nextOn, '9999-12-31', UPCOMING) : [];
    return { gift, upcoming };
  },
});

const updateRecurringGiftTool = tools.write('update_recurring_gift', {
  title: 'Change a recurring gift',
  description: 'Changes the amount, fund or method of an active or paused recurring gift, for the occurrences not yet recorded; donations already recorded keep their terms. To change the frequency or start date, cancel it and set up a new one.',
  keywords: ['change standing order', 'increase giving', 'new amount', 'amend regular gift', 'change direct debit'],
  examples: ['Bill is increasing his monthly giving to £40', 'move a standing order to the missions fund', "change Jack's standing order to £20", 'Lucy now pays by direct debit instead of card', "reduce Ann's monthly gift to £20", "redirect Paul's regular giving to the general fund", "update the amount on the Trust's yearly gift", 'the Smiths are upping their direct debit', 'Margaret wants her monthly gift to go to the building fund', "drop Alan's weekly giving from £15 to £10", "switch Ruth's regular donation from card to bank transfer", "amend the amount of the Hendersons' standing order to £50 a month"],
  input: z.object({
    recurringGiftId,
    amount: positiveMinorUnits.optional().describe('New minor units per occurrence'),
    fundId: z.uuid().optional().describe('New fund'),
    method: z.enum(RECURRING_METHODS).optional(),
  }).refine((v) => v.amount !== undefined || v.fundId !== undefined || v.method !== undefined, { message: 'give amount, fundId or method', path: ['amount'] }),
  output: giftOutput,
  run: async (ctx, { recurringGiftId: id, ...changes }) => ({ gift: await updateRecurringGift(ctx.db, ctx.org.id, id, changes) }),
});

const pauseRecurringGiftTool = tools.write('pause_recurring_gift', {
  title: 'Pause a recurring gift',
  description: 'Stops recording a recurring gift from now on, until resumed by hand (giving_resume_recurring_gift) or on resumeOn. Dates that fall while it is paused are skipped for good, never recorded later.',
  keywords: ['pause standing order', 'suspend giving', 'hold'],
  examples: ["hold Sue's direct debit while she is out of work", 'suspend a regular gift until June', "pause Bill's standing order for three months", "put the Ahmeds' regular gift on hold until September", "stop Ann's direct debit for now, she'll restart later", "freeze Jack's weekly gift while he's abroad", 'temporarily halt a monthly gift', "skip Lucy's giving for a while", "pause Beth's standing order", 'Colin is on sabbatical until October so put his monthly gift on hold till then', 'can we suspend a regular gift for a few months?'],
  input: z.object({ recurringGiftId, resumeOn: isoDate.optional().describe('YYYY-MM-DD after today: it resumes by itself that day') }),
  output: giftOutput,
  run: async (ctx, input) => ({ gift: await pauseRecurringGift(ctx.db, ctx.org.id, input.recurringGiftId, input.resumeOn) }),
});

const resumeRecurringGiftTool = tools.write('resume_recurring_gift', {
  title: 'Resume a recurring gift',
  description: 'Resumes a paused recurring gift from today: the next occurrence on or after today is recorded; the dates skipped while paused stay skipped.',
  examples: ["start Sue's standing order again", 'unpause a regular donation', "restart Bill's paused direct debit", 'Jack is back, resume his weekly gift', "take the Ahmeds' standing order off hold", "carry on recording Ann's monthly gift from today", 'reactivate a paused regular gift', 'Sue is working again, turn her giving back on', "resume Colin's gift", 'Beth is back from maternity leave, so restart her paused monthly giving', 'can you switch a paused standing order back on?'],
  input: z.object({ recurringGiftId }),
  output: giftOutput,
  run: async (ctx, input) => ({ gift: await resumeRecurringGift(ctx.db, ctx.org.id, input.recurringGiftId) }),
});

const cancelRecurringGiftTool = tools.write('cancel_recurring_gift', {
  title: 'Cancel a recurring gift',
  description: 'Stops a recurring gift for good: nothing more is recorded and it cannot be resumed (set up a new one instead). Donations already recorded stay.',
  keywords: ['cancel standing order', 'stop giving'],
  examples: ['Jim has stopped his standing order for good', 'end a direct debit permanently', "cancel Bill's standing order", 'the Ahmeds have moved churches, stop their direct debit', "end Lucy's regular card gift", "permanently stop the Trust's yearly gift", 'Ann has passed away, cancel her monthly gift', 'terminate a standing order', "cancel Beth's direct debit", 'the Nolans have moved to Cornwall and stopped their standing order for good, end it', "how do I permanently end someone's regular giving?"],
  input: z.object({ recurringGiftId, actionSummary }),
  output: giftOutput,
  run: async (ctx, input) => ({ gift: await cancelRecurringGift(ctx.db, ctx.org.id, input.recurringGiftId) }),
});

/** Refunds, pledge campaigns and pledges, recurring gifts. */
export const pledgeAndRecurringTools: readonly AnyTool[] = [
  refundDonationTool, listRefundsTool,
  createCampaignTool, listCampaignsTool, closeCampaignTool, createPledgeTool, listPledgesTool, cancelPledgeTool, getPledgeProgressTool,
  createRecurringGiftTool, listRecurringGiftsTool, getRecurringGiftTool, updateRecurringGiftTool, pauseRecurringGiftTool, resumeRecurringGiftTool, cancelRecurringGiftTool,
];
