import { z } from 'zod';
import { isProposalActionWorkflowId } from '../../../core/approvals';
import { StewardError } from '../../../core/errors';
import { bulkOf, cursorInput, cursorOutput, toolsFor } from '../../kit';
import { exactlyOne, type AnyTool, type ToolContext } from '../../tool';
import {
  batchSchema, commitBatch, commitNeedsApproval, createBatch, getBatch, listBatches, lockOpenBatch,
} from '../batches';
import {
  adjustmentDesignationInput, adjustmentIdsOf, DONATION_METHODS, donationFilterShape, donationInput, donationInputShape, donationSchema, getDonation, getDonations,
  insertDonation, isoDate, listDonations, recordDonations, removeBatchDonation, resolveAdjustment, resolveDonation,
} from '../donations';
import { archiveFund, createFund, fundSchema, listFunds, requireFund, updateFund } from '../funds';
import { giverSchema, listGivers, requireGiver, upsertGiver } from '../givers';
import { importDonations, importedRowCount, importResultSchema, MAX_IMPORT_CHARS } from '../import';
import { MAX_MINOR_UNITS, nonNegativeMinorUnits, signedMinorUnits } from '../money';
import { commitThresholdOf, givingSettingsOf, organisationCurrency, updateGivingSettings } from '../settings';
import { refundsOf, refundViewSchema } from '../refunds';
import { givingSummary, PERIODS, summarySchema, TOP_GIVER_PURPOSES, topGiverSchema, topGivers } from '../summary';
import { todayUtc } from '../../metrics';

const tools = toolsFor('giving', { read: 'giving:read', write: 'giving:write' });

/** Most gifts added to a batch in one call. */
export const MAX_BATCH_DONATIONS = 200;

const fundName = z.string().trim().min(1).max(120);
const fundCode = z.string().trim().min(1).max(30);
const fundDescription = z.string().trim().max(1000);
const batchName = z.string().trim().min(1).max(200);
const actionSummary = z.string().trim().max(500).optional().describe('Plain-English summary shown to the approver');
const settingsSchema = z.object({
  currency: z.string().nullable(),
  currencySource: z.enum(['setting', 'country', 'unset']),
  commitApprovalThreshold: z.number().int(),
}).strict();

// ---------------------------------------------------------------- settings

export const getSettingsTool = tools.read('get_settings', {
  title: 'Giving settings',
  description: "The organisation's giving currency (every amount is in its minor units: pence for GBP) and the batch total above which committing a batch needs an owner or admin's approval.",
  keywords: ['currency', 'approval threshold', 'giving settings'],
  examples: ['what currency do we record giving in', 'how big can a batch be before someone has to sign it off', 'are we set up in pounds or euros for giving', "what's the sign-off limit for banking a collection", "above what total does a deposit need the vicar's approval", 'giving setup: currency and approval level', 'do big collections need an admin to okay them before banking', 'which currency are the offering amounts stored in', 'giving currency', "the new treasurer asked what total needs an admin to sign off a batch, what's it set to?", "what's our approval limit for committing offerings?"],
  input: z.object({}),
  output: z.object({ settings: settingsSchema }).strict(),
  run: async (ctx) => ({ settings: await givingSettingsOf(ctx.db, ctx.org) }),
});

function requireOwnerOrAdmin(ctx: ToolContext, what: string): void {
  if (ctx.principal.role !== 'owner' && ctx.principal.role !== 'admin') {
    throw new StewardError('forbidden', `Only an owner or admin can change ${what}`, { details: { role: ctx.principal.role } });
  }
}

const updateSettingsTool = tools.write('update_settings', {
  title: 'Change giving settings',
  description: "Sets the giving currency (only before anything is recorded; by default it follows the organisation's country, GBP for GB) or the commit approval threshold in minor units. Owners and admins only: the threshold decides which batches need their approval.",
  keywords: ['set currency', 'approval threshold'],
  examples: ["change the limit above which a batch needs the treasurer's approval", 'record our giving in euros instead of pounds', 'raise the approval limit for batches to £5,000', 'only collections over £2,000 should need the treasurer to okay them', 'set our giving currency to pounds sterling', 'lower the sign-off threshold for banking offerings to £500', "we're an Irish parish, switch giving to euros before we start", "change the amount at which a deposit needs an admin's approval", 'set the approval threshold to £3,000', 'Keith wants to approve anything big himself, so make batches over £1,000 need sign-off', 'can we switch the giving currency to euros?'],
  idempotent: true,
  input: z.object({
    currency: z.string().length(3).regex(/^[A-Za-z]{3}$/, 'A three-letter ISO 4217 code such as GBP').optional(),
    commitApprovalThreshold: nonNegativeMinorUnits.optional().describe('Batches whose gross passes this many minor units need approval to commit'),
  }),
  output: z.object({ settings: settingsSchema }).strict(),
  run: async (ctx, input) => {
    requireOwnerOrAdmin(ctx, 'giving settings');
    return { settings: await updateGivingSettings(ctx.db, ctx.org, input) };
  },
});

// ---------------------------------------------------------------- funds

export const listFundsTool = tools.read('list_funds', {
  title: 'List funds',
  description: 'The funds gifts are given to (general, building, missions…), default fund first, with whether each is Gift Aid eligible and active or archived.',
  keywords: ['funds', 'designations', 'giving categories'],
  examples: ['which funds can people give to', 'what giving designations have we got', 'show me all our funds', 'which funds are gift aid eligible', 'what can people put their offering towards', 'list the giving pots including archived ones', 'which one is our default fund', 'what categories can someone designate their giving to', 'our funds', 'Bev is filling in the donation form and wants every fund people can choose from', 'which funds are still active?'],
  input: z.object({ status: z.enum(['active', 'archived', 'all']).default('active') }),
  output: z.object({ funds: z.array(fundSchema) }).strict(),
  run: async (ctx, input) => ({ funds: await listFunds(ctx.db, ctx.org.id, input.status) }),
});

const createFundTool = tools.write('create_fund', {
  title: 'Create a fund',
  description: 'Creates a fund gifts can be designated to. Names (and codes, if given) are unique ignoring case. isDefault makes it the fund for gifts that name none.',
  keywords: ['new fund', 'add fund'],
  examples: ['set up a new fund for the roof repairs', 'add a missions designation people can give to', 'create a fund for the new organ', 'we need a separate pot for the food bank donations', "add a hardship fund that isn't gift aid eligible", 'open a youth mission trip fund with code YMT', 'start a new designation for the church hall kitchen', 'add a fund called Bell Restoration', 'new fund for the boiler', 'the PCC agreed a Ukraine relief appeal last night, so add a fund for it', 'can you create a designation for the churchyard wall?'],
  input: z.object({
    name: fundName, code: fundCode.optional(), description: fundDescription.optional(),
    giftAidEligible: z.boolean().default(true), isDefault: z.boolean().default(false),
  }),
  output: z.object({ fund: fundSchema }).strict(),
  run: async (ctx, input) => ({ fund: await createFund(ctx.db, ctx.org.id, input) }),
});

export const updateFundTool = tools.write('update_fund', {
  title: 'Update a fund',
  description: 'Renames a fund or changes its code, description, Gift Aid eligibility or whether it is the default; status "active" restores an archived fund. Gifts already recorded keep their fund.',
  keywords: ['rename fund', 'default fund', 'restore fund'],
  examples: ['rename the building fund', 'make the general fund the default one', 'bring back the archived youth fund', 'change the name of the missions fund to Mission Partners', 'the flower fund should be gift aid eligible', 'update the code on the roof fund to ROOF24', 'reopen the old Sunday school fund', 'gifts with no fund named should go to the building fund from now on', 'correct the description of the hardship fund', 'rename the roof fund', 'the building fund is now called the Fabric Fund after the PCC vote, update it', 'can we make the mission fund gift aid eligible?'],
  idempotent: true,
  input: z.object({
    fundId: z.uuid(), name: fundName.optional(), code: fundCode.nullable().optional(), description: fundDescription.nullable().optional(),
    giftAidEligible: z.boolean().optional(), isDefault: z.boolean().optional(), status: z.literal('active').optional(),
  }),
  output: z.object({ fund: fundSchema }).strict(),
  run: async (ctx, { fundId, ...changes }) => ({ fund: await updateFund(ctx.db, ctx.org.id, fundId, changes) }),
});

const archiveFundTool = tools.write('archive_fund', {
  title: 'Archive a fund',
  description: 'Archives a fund: it keeps its history and totals but takes no new gifts. Refused for the default fund and while uncommitted gifts, open pledges or active recurring gifts use it.',
  keywords: ['close fund', 'retire fund', 'deactivate fund'],
  examples: ['we no longer use the organ fund, retire it', 'stop taking gifts into an old fund but keep its history', 'close the tower fund, the work is done', 'archive the bell fund', 'the roof is finished, stop the roof fund taking any more money', 'hide the old Lent fund but keep its totals', "mothball the youth camp fund, we don't run camp any more", 'retire the fund for the 2019 mission trip', 'archive the boiler fund', 'the Ukraine appeal finished in June so retire its fund but keep the history', 'can we close a fund we no longer use?'],
  idempotent: true,
  input: z.object({ fundId: z.uuid() }),
  output: z.object({ fund: fundSchema }).strict(),
  run: async (ctx, input) => ({ fund: await archiveFund(ctx.db, ctx.org.id, input.fundId) }),
});

// ---------------------------------------------------------------- givers

export const getGiverTool = tools.read('get_giver', {
  title: 'Get a giver',
  description: "A contact's giving details (giver reference, Gift Aid title and address, joint giver, last four digits of their bank account) by giver id or contact id.",
  keywords: ['donor', 'giver details', 'gift aid address'],
  examples: ['what envelope number and gift aid address do we hold for John', "show a donor's giving details", 'what gift aid address do we have for Mrs Patel', "show Dave's envelope number", "who is Margaret's joint giver", "last four digits of the bank account on the Browns' giving record", 'pull up the giving details for Alan Hughes', 'what title and postcode have we got on file for his gift aid', "Dave's giving record", "HMRC queried Mrs Nolan's gift aid, so show me the title and address we hold for her", "what's Colin's envelope number?"],
  input: z.object({ giverId: z.uuid().optional(), contactId: z.uuid().optional() }).refine(...exactlyOne('giverId', 'contactId')),
  output: z.object({ giver: giverSchema }).strict(),
  run: async (ctx, input) => ({ giver: await requireGiver(ctx.db, ctx.org.id, input) }),
});

const listGiversTool = tools.read('list_givers', {
  title: 'List givers',
  description: 'Contacts with giving details, newest first; query finds a giver reference (envelope number), name or postcode containing it. Page with nextCursor.',
  keywords: ['donors', 'envelope numbers', 'find giver'],
  examples: ['who has envelope number 42', 'list everyone set up as a donor', 'find the giver in postcode SW1', 'find the donor with envelope 117', 'all our givers, newest first', 'which givers live in postcode BS7', 'search the donors for Thompson', 'who has a giving number set up', 'show the latest people added as givers', 'list donors', "I'm checking the envelope numbers before reissuing boxes, show me every giver", 'which givers have a postcode starting LS6?'],
  input: z.object({ query: z.string().trim().min(1).max(100).optional(), ...cursorInput }),
  output: z.object({ givers: z.array(giverSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listGivers(ctx.db, ctx.org.id, input),
});

const nullableText = (max: number) => z.string().trim().min(1).max(max).nullable().optional();

const upsertGiverTool = tools.write('upsert_giver', {
  title: 'Record giving details',
  description: "Records or changes a contact's giving details: giver reference (made up from the contact if left out), title and address as Gift Aid needs them, joint giver (spouse). A bank account number keeps only its last four digits; the rest is never stored. Left-out fields keep their value; null clears one.",
  keywords: ['add donor', 'giver', 'envelope number', 'gift aid address'],
  examples: ['give Sarah an envelope number', "save a donor's title and home address for gift aid", 'make Mary a joint giver with her husband', "put down Mr and Mrs Clarke's home address for gift aid", 'assign envelope number 88 to the new couple', "update Peter's title to Dr on his giving record", 'set Jean up as a giver', "link Tom's giving with his wife Sue as joint givers", "clear the joint giver on Frank's giving record, they've separated", 'set up Beth as a donor', 'the Nolans moved to Harrogate, so update their gift aid address on their giving record', 'can you give the new couple envelope number 214?'],
  idempotent: true,
  input: z.object({
    contactId: z.uuid(),
    giverReference: z.string().trim().min(1).max(50).optional().describe('Envelope or donor number; unique in the organisation'),
    title: nullableText(20).describe('Mr, Mrs, Ms, Dr, Revd…: Gift Aid claims need one of at most 4 letters'),
    houseNameOrNumber: nullableText(100),
    addressLine: nullableText(200),
    town: nullableText(100),
    postcode: z.string().trim().min(2).max(10).regex(/^[A-Za-z0-9 ]+$/, 'letters, digits and spaces').nullable().optional(),
    jointContactId: z.uuid().nullable().optional().describe('A joint giver, such as a spouse'),
    bankAccountNumber: z.string().trim().min(4).max(40).nullable().optional().describe('Only the last four digits are kept'),
  }),
  output: z.object({ giver: giverSchema, created: z.boolean() }).strict(),
  run: async (ctx, input) => upsertGiver(ctx.db, ctx.org.id, input),
});

// ---------------------------------------------------------------- batches

const createBatchTool = tools.write('create_batch', {
  title: 'Start a batch',
  description: "Starts a batch for a collection of gifts (this Sunday's offering, a week's card payments). Gifts in it count nowhere until giving_commit_batch commits it.",
  keywords: ['new batch', 'offering', 'collection', 'deposit'],
  examples: ["start entering this Sunday's offering", 'open a new collection to count the plate', "begin a deposit for this week's card payments", 'new batch for the 9.30 service collection', "I'm about to count the plate, open a batch", 'start a batch for the Harvest Festival offering', "create a deposit for Easter Sunday's envelopes", "open a fresh batch for this month's online giving", 'begin a collection record for the midnight mass offering', 'new batch', 'Keith has the bags from the 8am and the 10:30, open a batch so he can start entering', "can we start a deposit for Mothering Sunday's collection?"],
  listed: true,
  input: z.object({ name: batchName.describe('Such as "Sunday offering 2026-11-22"') }),
  output: z.object({ batch: batchSchema }).strict(),
  run: async (ctx, input) => ({
    batch: await createBatch(ctx.db, ctx.org.id, { name: input.name, currency: await organisationCurrency(ctx.db, ctx.org), userId: ctx.principal.userId }),
  }),
});

export const listBatchesTool = tools.read('list_batches', {
  title: 'List batches',
  description: 'Batches, newest first, with their gift count, total and status (in_progress until committed); page with nextCursor.',
  keywords: ['batches', 'uncommitted', 'deposits'],
  examples: ["which collections haven't been banked yet", 'show recent offering batches and their totals', 'show all batches still in progress', 'list the last ten deposits with their totals', 'any counted collections not finalised yet', 'what batches did we do in February', 'which offerings are still waiting to be committed', "recent deposits and whether they've been banked", 'unbanked batches', "the auditor wants every deposit from the last quarter with totals and whether it's banked", 'have we got any batches still open?'],
  input: z.object({ status: z.enum(['in_progress', 'committed']).optional(), ...cursorInput }),
  output: z.object({ batches: z.array(batchSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listBatches(ctx.db, ctx.org.id, input),
});

export const getBatchTool = tools.read('get_batch', {
  title: 'Get a batch',
  description: 'One batch with its gift count, total and status; giving_list_donations { batchId } lists its gifts.',
  examples: ["how much is in last Sunday's collection so far", 'total and count of one deposit', "what's the running total in the open batch", 'has the Easter collection batch been committed', "how many envelopes are in this morning's batch", 'show me the details of the batch from 2 June', 'status of the batch I started yesterday', 'total so far for the harvest offering batch', 'show batch 48', "Keith's counting the Palm Sunday offering, what's that batch's total so far?", 'is the carol service batch banked yet?'],
  input: z.object({ batchId: z.uuid() }),
  output: z.object({ batch: batchSchema }).strict(),
  run: async (ctx, input) => ({ batch: await getBatch(ctx.db, ctx.org.id, input.batchId) }),
});

const addBatchDonationsTool = tools.write('add_batch_donations', {
  title: 'Add gifts to a batch',
  description: `Adds up to ${MAX_BATCH_DONATIONS} gifts to an open batch, all or none (an error names the gift's index). Amounts are whole minor units in the organisation's currency; designations split a gift across funds and must add up to its amount. A gift whose externalId is already recorded (source "manual") is returned as a duplicate, not recorded again.`,
  keywords: ['enter offering', 'batch entry', 'cash gifts', 'cheques'],
  examples: ['type in all the envelopes from this morning', 'enter a pile of cheques into the open collection', "add these 15 envelopes to Sunday's batch", "enter all the week's cheques into the open deposit", 'put these into the batch: Smith £10, Jones £25, Patel £40', 'key in the whole plate count at once', "bulk add today's envelope gifts to the collection", 'add several cash gifts to the open batch, some split between funds', 'add these envelopes to the batch', 'the 8am count has 23 envelopes and some loose cheques, enter them all into the open batch', "can you key this list of gifts into Sunday's deposit?"],
  meter: { feature: 'donations', units: 1 },
  meterCount: (input) => input.donations.length,
  meterUsed: (output) => output.donations.length - output.duplicates.length,
  input: z.object({ batchId: z.uuid(), donations: bulkOf(donationInput, MAX_BATCH_DONATIONS) }),
  output: z.object({
    batch: batchSchema, donations: z.array(donationSchema), duplicates: z.array(z.uuid()).describe('Ids of gifts already recorded, returned instead of recorded again'),
  }).strict(),
  run: async (ctx, input) => {
    const recorded = await recordDonations(ctx.db, ctx.org, input.batchId, input.donations, { source: 'manual', userId: ctx.principal.userId, path: 'donations' });
    return {
      batch: await getBatch(ctx.db, ctx.org.id, input.batchId),
      donations: await getDonations(ctx.db, ctx.org.id, recorded.map((r) => r.id)),
      duplicates: recorded.filter((r) => r.duplicate).map((r) => r.id),
    };
  },
});

const recordDonationTool = tools.write('record_donation', {
  title: 'Record a gift',
  description: "Records one gift into an open batch (batchId), or into a batch of its own; commit: true commits that batch at once when it is within the approval threshold. Amounts are whole minor units in the organisation's currency. With an externalId (e.g. the card processor's payment id) the same gift is never recorded twice: a repeat returns the first with duplicate: true.",
  keywords: ['donation', 'gift', 'record giving', 'tithe', 'offering'],
  examples: ['log £20 from the Smiths to the roof fund', 'someone gave fifty pounds in cash, put it down', 'record a tithe from Peter', 'Mrs Green dropped in a cheque for £75, record it', 'note a £100 gift from Alan to missions', 'one-off offering of £15 from a visitor', 'Jane gave £200 split between general and the roof fund', "put down David's £30 bank transfer and bank it straight away", 'log a single card payment of £12.50', 'record £40 from Beth', 'Colin handed me a cheque after the service, £60 for the organ fund, can you log it?', 'I need to put down a one-off gift from a visitor'],
  listed: true,
  meter: { feature: 'donations', units: 1 },
  meterUsed: (output) => (output.duplicate ? 0 : 1),
  input: z.object({
    ...donationInputShape,
    batchId: z.uuid().optional().describe('An open batch; left out, the gift gets a batch of its own'),
    commit: z.boolean().default(false).describe('With no batchId: commit the new batch at once (within the approval threshold only)'),
  }),
  output: z.object({ donation: donationSchema, batch: batchSchema, duplicate: z.boolean() }).strict(),
  run: async (ctx, { batchId, commit, ...gift }) => {
    if (batchId && commit) {
      throw new StewardError('validation_failed', 'commit: only a batch of its own is committed with the gift', {
        issues: [{ path: 'commit', message: 'not with batchId' }], hint: 'Commit a shared batch with giving_commit_batch.',
      });
    }
    const currency = await organisationCurrency(ctx.db, ctx.org);
    const resolved = await resolveDonation(ctx.db, ctx.org, currency, gift, { source: 'manual' });
    const ownBatch = !batchId;
    const batch = batchId
      ? await lockOpenBatch(ctx.db, ctx.org.id, batchId)
      : await createBatch(ctx.db, ctx.org.id, { name: `Gift received ${gift.receivedOn}`, currency, userId: ctx.principal.userId });
    const recorded = await insertDonation(ctx.db, ctx.org.id, batch.id, resolved, ctx.principal.userId);
    // A repeat of a recorded gift leaves its batch of its own empty: it is not kept.
    if (recorded.duplicate && ownBatch) await ctx.db.query('DELETE FROM giving_batches WHERE org_id = $1 AND id = $2', [ctx.org.id, batch.id]);
    if (!recorded.duplicate && ownBatch && commit && resolved.amount <= await commitThresholdOf(ctx.db, ctx.org.id)) {
      await commitBatch(ctx.db, ctx.org, batch.id, { userId: ctx.principal.userId, approved: false });
    }
    const donation = await getDonation(ctx.db, ctx.org.id, recorded.id);
    return { donation, batch: await getBatch(ctx.db, ctx.org.id, donation.batchId), duplicate: recorded.duplicate };
  },
});

const removeBatchDonationTool = tools.write('remove_batch_donation', {
  title: 'Remove a gift from an open batch',
  description: 'Removes a gift entered by mistake from a batch that is not committed yet. A committed gift is never removed: correct it with giving_adjust_donation.',
  keywords: ['delete gift', 'undo entry'],
  examples: ['I typed a gift in twice, take it out of the batch', 'delete a gift from an unbanked collection', "take the £40 entry out of today's batch, it's not ours", 'remove the wrong envelope from the open collection', "I put Harry's gift in the wrong batch, delete it from this one", 'scrap that last entry before we bank the count', 'undo the gift I just added to the uncommitted batch', "bin the duplicate £20 in this morning's count", 'delete that gift from the batch', "Keith entered envelope 42 twice in today's uncommitted count, remove the extra one", 'can I take a wrong entry out before we bank?'],
  destructive: true,
  input: z.object({ donationId: z.uuid() }),
  output: z.object({ removed: z.object({ donationId: z.uuid(), batchId: z.uuid() }).strict(), batch: batchSchema }).strict(),
  run: async (ctx, input) => {
    const removed = await removeBatchDonation(ctx.db, ctx.org.id, input.donationId);
    return { removed, batch: await getBatch(ctx.db, ctx.org.id, removed.batchId) };
  },
});

const adjustDonationTool = tools.write('adjust_donation', {
  title: 'Correct a committed gift',
  description: 'Corrects a gift in a committed batch (which never changes) with an adjusting entry: a signed amount (negative to reduce) recorded in an open batch (batchId) or a new one, linked to the gift, counted once that batch is committed. designations say how the change splits across the gift\'s funds when it has several; no fund may fall below what was refunded from it.',
  keywords: ['correction', 'adjusting entry', 'fix committed batch', 'wrong amount'],
  examples: ['a banked gift was entered as £100 but was really £10', 'correct the amount of a gift after the batch was finalised', "a gift in last month's banked collection should be £25 not £52", 'reduce a committed gift by £5', 'the amount on an envelope we already banked is wrong, put in a correction', 'make an adjusting entry for the overstated cheque from 3 March', "we over-recorded Susan's gift by £10 after banking it", 'amend a finalised donation that was keyed in wrong', 'correct a banked gift', "Beth's cheque was £35 not £53 and the batch is already committed, fix it with an adjustment", 'how do I fix an amount in a finalised batch?'],
  input: z.object({
    donationId: z.uuid(),
    amount: signedMinorUnits.describe('The change in minor units: -500 takes £5.00 off'),
    designations: z.array(adjustmentDesignationInput).min(1).max(20).optional(),
    reason: z.string().trim().min(3).max(500),
    batchId: z.uuid().optional().describe('An open batch for the entry; left out, a new batch'),
    receivedOn: isoDate.optional().describe('The date of the entry; today when left out'),
  }),
  output: z.object({ adjustment: donationSchema, batch: batchSchema }).strict(),
  run: async (ctx, input) => {
    const currency = await organisationCurrency(ctx.db, ctx.org);
    const batch = input.batchId
      ? await lockOpenBatch(ctx.db, ctx.org.id, input.batchId)
      : await createBatch(ctx.db, ctx.org.id, { name: `Adjustments ${todayUtc()}`, currency, userId: ctx.principal.userId });
    const resolved = await resolveAdjustment(ctx.db, ctx.org, currency, input);
    const recorded = await insertDonation(ctx.db, ctx.org.id, batch.id, resolved, ctx.principal.userId);
    return { adjustment: await getDonation(ctx.db, ctx.org.id, recorded.id), batch: await getBatch(ctx.db, ctx.org.id, batch.id) };
  },
});

const commitBatchTool = tools.write('commit_batch', {
  title: 'Commit a batch',
  description: "Commits a batch: its gifts then count in totals, giver histories, statements and Gift Aid claims, and the batch never changes again. A batch whose gross passes the organisation's approval threshold (giving_get_settings) becomes a proposal for an owner or admin, and is committed when they approve; such a commit needs expectedTotal, so the approver commits exactly the total shown. expectedTotal, when given, must equal the batch's total.",
  keywords: ['close batch', 'post batch', 'finalise offering', 'deposit'],
  examples: ["the count is done, bank this Sunday's collection", 'finalise the offering so it shows in the totals', 'commit the batch, the total should be £842.50', "we've finished counting, finalise the deposit", 'bank the Harvest collection', "lock in this week's card payments batch", 'post the batch so it appears in the giving reports', 'close off the Christmas Day offering', 'commit the batch', 'Keith and Sue have double-counted the Easter offering and it matches, so bank it', "can you finalise this week's deposit?"],
  listed: true,
  approval: {
    kind: 'gated',
    when: {
      reason: "the batch's gross passes the organisation's commit approval threshold",
      applies: async (args, deps) => commitNeedsApproval(deps.db, deps.orgId, String(args.batchId), typeof args.expectedTotal === 'number' ? args.expectedTotal : undefined),
    },
  },
  input: z.object({
    batchId: z.uuid(),
    expectedTotal: z.number().int().min(-MAX_MINOR_UNITS).max(MAX_MINOR_UNITS).optional().describe('The total (minor units) you saw; the commit is refused if the batch changed'),
    actionSummary,
  }),
  output: z.object({ batch: batchSchema }).strict(),
  run: async (ctx, input) => ({
    batch: await commitBatch(ctx.db, ctx.org, input.batchId, {
      userId: ctx.principal.userId, expectedTotal: input.expectedTotal, approved: isProposalActionWorkflowId(ctx.org.id, ctx.workflowId),
    }),
  }),
});

// ---------------------------------------------------------------- donations

const listDonationsTool = tools.read('list_donations', {
  title: 'List donations',
  description: 'Committed gifts, newest recorded first, filtered by fund, giver, received date range, method, batch or Gift Aid status; page with nextCursor. Gifts of an uncommitted batch appear only when that batch is named.',
  keywords: ['gifts', 'giving history', 'donor history', 'transactions', 'donations list'],
  examples: ['what has Peter given this year', 'every gift to the building fund in March', 'show the donations paid by card last month', 'list all gifts from the Jones family since January', 'show cash donations in the last quarter', 'donations to the missions fund between April and June', "every gift in last Sunday's batch", "show me Margaret's giving history", 'all gifts made by bank transfer in May', 'gifts this week', "for Colin's letter I need every gift he made between January and June", 'which donations came in by cheque last month?'],
  listed: true,
  input: z.object(donationFilterShape),
  output: z.object({ donations: z.array(donationSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listDonations(ctx.db, ctx.org.id, input),
});

export const getDonationTool = tools.read('get_donation', {
  title: 'Get a donation',
  description: 'One gift with its funds, batch (and whether it is committed), its refunds, Gift Aid status, links to a pledge, recurring gift or the gift it adjusts, and the adjusting entries made to it.',
  keywords: ['gift details'],
  examples: ['details of one gift and whether it was refunded', 'look at a single donation', 'open the £250 gift from 4 May', 'which batch was that £500 donation in', 'has this particular gift been claimed for gift aid', 'show that one donation and which funds it went to', 'is the gift from Tom linked to his pledge', 'see the corrections made to a particular gift', 'show this gift', 'Beth says she gave £80 on 9 March but it looks odd, pull up that one donation', 'was that £500 gift refunded?'],
  input: z.object({ donationId: z.uuid() }),
  output: z.object({
    donation: donationSchema,
    refunds: z.array(refundViewSchema),
    adjustments: z.array(donationSchema).describe('Adjusting entries that correct this gift (each counts once its batch is committed)'),
  }).strict(),
  run: async (ctx, input) => {
    const donation = await getDonation(ctx.db, ctx.org.id, input.donationId);
    return {
      donation,
      refunds: await refundsOf(ctx.db, ctx.org.id, donation.id),
      adjustments: await getDonations(ctx.db, ctx.org.id, await adjustmentIdsOf(ctx.db, ctx.org.id, donation.id)),
    };
  },
});

const importDonationsTool = tools.write('import_donations', {
  title: 'Import gifts from a CSV',
  description: `Imports gifts from a CSV (a bank statement export, a card processor's report, a spreadsheet): header row first with a date and an amount column (12.50, or amount_minor 1250) and optionally reference, method, fund, giver_reference / contact_id / email, fee, description. Run mode "dry_run" first: every row is reported as created, duplicate (its reference from this source is already recorded), near_duplicate (same giver, amount and date within a day already recorded) or error (with the row number). mode "commit" records all the new rows into one batch, or none if any row is an error; near-duplicates only with acceptNearDuplicates. Importing the same file again records nothing twice. At most ${MAX_IMPORT_CHARS} characters per call.`,
  keywords: ['bank export', 'csv', 'upload donations', 'stripe report', 'reconcile'],
  examples: ['load the card payments from the bank statement spreadsheet', "upload last month's online giving export", 'import the Stripe payouts CSV', 'bring in the bank transactions spreadsheet for March', 'do a test run of the online giving file before loading it', 'upload the PayPal giving report', 'load the standing order payments from the bank export', 'check the donations CSV for duplicates then import it', 'import the bank CSV', "the bank sent a spreadsheet of April's standing orders, load those gifts in", 'can we upload the card payments file from SumUp?'],
  meter: { feature: 'donations', units: 1 },
  meterCount: importedRowCount,
  meterUsed: (output) => output.counts.recorded,
  input: z.object({
    csv: z.string().min(1).max(MAX_IMPORT_CHARS).describe(`The CSV text, header row first (at most ${MAX_IMPORT_CHARS} characters; split larger files)`),
    source: z.string().trim().min(1).max(60).regex(/^[a-z0-9][a-z0-9_.-]*$/, 'lower-case letters, digits, . _ -').describe('Where the file comes from, such as "barclays" or "stripe": references are unique per source'),
    mode: z.enum(['dry_run', 'commit']),
    batchId: z.uuid().optional().describe('An open batch to import into; left out, a new batch'),
    batchName: batchName.optional(),
    defaultMethod: z.enum(DONATION_METHODS).default('bank_transfer').describe('For rows without a method column'),
    fundId: z.uuid().optional().describe('For rows without a fund column; left out, the default fund'),
    acceptNearDuplicates: z.boolean().default(false),
  }),
  output: importResultSchema,
  run: async (ctx, input) => importDonations(ctx.db, ctx.org, input, ctx.principal.userId, ctx.progress),
});

// ---------------------------------------------------------------- summaries

const summaryTool = tools.read('summary', {
  title: 'Giving summary',
  description: 'Totals given by fund and by period (day, week, month, quarter, year) over a date range (this year so far by default), and this month so far against the same days last year. Committed gifts only, net of refunds, in minor units.',
  keywords: ['giving report', 'totals', 'income', 'this month', 'year on year'],
  examples: ['how much came in this month compared with last year', 'giving totals per fund this quarter', 'what was the total income this year', 'total giving so far this year', 'monthly giving totals for last year', 'how is giving this month versus the same time last year', 'how much did the building fund receive this quarter', 'weekly income for the last three months', 'giving report by fund for 2024', 'giving this year', 'the PCC wants income per fund for the last twelve months, month by month', 'are we giving more or less than last year?'],
  listed: true,
  input: z.object({
    from: isoDate.optional(), to: isoDate.optional(), period: z.enum(PERIODS).default('month'), fundId: z.uuid().optional(),
  }),
  output: summarySchema,
  run: async (ctx, input) => {
    if (input.fundId) await requireFund(ctx.db, ctx.org.id, input.fundId);
    return givingSummary(ctx.db, ctx.org, input);
  },
});

const listTopGiversTool = tools.read('list_top_givers', {
  title: 'Top givers (for thank-you letters)',
  description: 'The givers who gave most over a whole period of at least three months (so no single gift singles anyone out), with their total and number of gifts, for writing thank-you letters or a stewardship review. Committed gifts net of refunds; anonymous gifts are never listed. Needs giving:read, which volunteers never hold.',
  keywords: ['largest donors', 'thank you letters', 'major givers'],
  examples: ['who gave most this year so I can write thank-you letters', 'our most generous supporters over the last twelve months', 'our biggest donors over the past year', 'who should get a thank-you letter from the vicar', 'top 20 givers for the stewardship review', 'largest supporters since April', 'which families gave the most last year', 'major givers over the last six months', 'top givers', 'the vicar wants to write personally to our most generous families from the last year', 'who are our largest supporters this year?'],
  input: z.object({
    purpose: z.enum(TOP_GIVER_PURPOSES).describe('Why the list is needed'),
    months: z.number().int().min(3).max(36).default(12).describe('The period, in whole months, ending on endingOn'),
    endingOn: isoDate.optional().describe('Last day of the period; today when left out'),
    limit: z.number().int().min(1).max(50).default(10),
  }),
  output: z.object({ purpose: z.enum(TOP_GIVER_PURPOSES), from: z.string(), to: z.string(), givers: z.array(topGiverSchema) }).strict(),
  run: async (ctx, input) => ({ purpose: input.purpose, ...(await topGivers(ctx.db, ctx.org.id, input)) }),
});

/** Funds, givers, batches, donations, imports, summaries. */
export const coreTools: readonly AnyTool[] = [
  getSettingsTool, updateSettingsTool,
  listFundsTool, createFundTool, updateFundTool, archiveFundTool,
  getGiverTool, listGiversTool, upsertGiverTool,
  createBatchTool, listBatchesTool, getBatchTool, addBatchDonationsTool, recordDonationTool, removeBatchDonationTool,
  adjustDonationTool, commitBatchTool,
  listDonationsTool, getDonationTool, importDonationsTool,
  summaryTool, listTopGiversTool,
];
