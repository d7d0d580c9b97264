import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { calendarDate, cursorInput, cursorOutput, toolsFor } from '../../kit';
import type { AnyTool } from '../../tool';
import { nonNegativeMinorUnits } from '../money';
import {
  cancelClaim, checkForSubmission, CLAIM_STATUSES, claimLines, createClaim, getClaim, listClaims, planClaim, recordOutcome,
  recordSubmission, requireSterling, type ClaimPlan,
} from '../gift-aid/claims';
import { cancelDeclaration, confirmOralDeclaration, listDeclarations, recordDeclaration } from '../gift-aid/declarations';
import { todayUtc } from '../../metrics';
import { listGasdsCollections, recordGasdsCollection } from '../gift-aid/gasds';
import { giftAidProviderFromEnv } from '../gift-aid/hmrc-provider';
import { DECLARATION_METHODS, DECLARATION_SCOPES, GASDS_MAX_GIFT, GASDS_METHODS, parseTaxYear } from '../gift-aid/rules';
import { generateStatements, getStatement, listStatements, MAX_STATEMENTS_PER_RUN, queueStatementsForEmail } from '../gift-aid/statements';
import { exactlyOne } from '../../tool';

const tools = toolsFor('giving', { read: 'giving:read', write: 'giving:write' });

const isoDate = calendarDate();
const reason = z.string().trim().min(1).max(500);
const money = z.number().int();

// ---------------------------------------------------------------- declarations

const declarationSchema = z.object({
  id: z.uuid(),
  contactId: z.uuid().nullable(),
  scope: z.enum(DECLARATION_SCOPES),
  method: z.enum(DECLARATION_METHODS),
  madeOn: z.string(),
  startOn: z.string().describe('The first gift date it covers'),
  endOn: z.string().nullable(),
  confirmationSentOn: z.string().nullable().describe('Oral declarations: when the written record was sent; until then it covers nothing'),
  donationId: z.uuid().nullable(),
  note: z.string().nullable(),
  state: z.enum(['active', 'awaiting_confirmation', 'cancelled', 'ended']),
  cancelledOn: z.string().nullable(),
  cancelReason: z.string().nullable(),
  createdAt: z.string(),
}).strict();

const recordDeclarationTool = tools.write('record_gift_aid_declaration', {
  title: 'Record a Gift Aid declaration',
  description: "Records a giver's Gift Aid declaration, so their gifts can be claimed. scope: past_and_future (enduring: covers gifts from startOn, at most 4 years before madeOn and by default exactly that, and every later gift), future_only (from madeOn), or single_gift (donationId names the one gift). method: written, online or oral; an oral declaration covers nothing until its written confirmation is sent (confirmationSentOn, or giving_confirm_oral_declaration later). The giver's name, house name or number and postcode are checked on each claim line, not here.",
  keywords: ['gift aid', 'declaration', 'GAD', 'HMRC', 'tax relief', 'taxpayer'],
  examples: ['Joan has filled in a gift aid form', 'she pays UK tax and wants us to claim on her gifts', 'Mr Okafor signed a gift aid declaration today', 'Helen agreed over the phone to gift aid her donations', 'record a gift aid form covering the last four years and future gifts', 'gift aid just the one £500 gift from Ian', 'a new taxpayer wants gift aid on future giving only', 'log an online gift aid declaration for the Taylors', 'add gift aid for Beth', 'Colin filled in the gift aid slip at the welcome desk today, so record his declaration', "can we start claiming gift aid on the Nolans' giving?"],
  input: z.object({
    contactId: z.uuid().describe('The giver (a contact)'),
    scope: z.enum(DECLARATION_SCOPES),
    method: z.enum(DECLARATION_METHODS),
    madeOn: isoDate.describe('The day the giver made it (YYYY-MM-DD); not in the future'),
    startOn: isoDate.optional().describe('The first gift date covered (YYYY-MM-DD); past_and_future defaults to 4 years before madeOn, future_only to madeOn'),
    endOn: isoDate.optional().describe('The last gift date covered, if it has an end'),
    confirmationSentOn: isoDate.optional().describe('Oral only: when the written record of it was sent to the giver'),
    donationId: z.uuid().optional().describe('single_gift only: the gift it covers'),
    note: z.string().trim().max(1000).optional(),
  }),
  output: z.object({ declaration: declarationSchema }).strict(),
  run: async (ctx, input) => {
    await requireSterling(ctx.db, ctx.org);
    return { declaration: await recordDeclaration(ctx.db, ctx.org.id, ctx.principal.userId, input) };
  },
});

const cancelDeclarationTool = tools.write('cancel_gift_aid_declaration', {
  title: 'Cancel a Gift Aid declaration',
  description: 'Cancels a declaration from a day on (today unless cancelledOn is given): gifts from that day are no longer covered and leave future claims; gifts before it stay claimable, and lines already claimed are not touched.',
  keywords: ['gift aid', 'withdraw declaration', 'no longer a taxpayer'],
  examples: ['he no longer pays tax, stop claiming gift aid on his giving', "withdraw a donor's gift aid declaration", 'Brian has retired and stopped paying tax, cancel his gift aid', "end Mrs Lee's gift aid declaration from 1 April", "she's asked us not to claim gift aid any more", 'revoke the gift aid form for Jack', "stop gift aid on Pam's giving from next month", 'cancel a taxpayer declaration', "cancel Colin's gift aid", "Beth's stopped working and doesn't pay tax any more, so end her gift aid from this month", "how do I stop claiming gift aid on someone's gifts?"],
  input: z.object({
    declarationId: z.uuid(),
    cancelledOn: isoDate.optional().describe('Gifts on or after this day are no longer covered (YYYY-MM-DD); today when left out'),
    reason: reason.describe('Why, e.g. "no longer pays enough tax"'),
  }),
  output: z.object({ declaration: declarationSchema }).strict(),
  run: async (ctx, input) => ({ declaration: await cancelDeclaration(ctx.db, ctx.org.id, input.declarationId, input) }),
});

const confirmDeclarationTool = tools.write('confirm_oral_declaration', {
  title: 'Record the written confirmation of an oral declaration',
  description: 'Records the day the written record of an oral Gift Aid declaration was sent to the giver. Until then the declaration covers no gift; from then on it covers every gift in its scope.',
  keywords: ['gift aid', 'oral declaration', 'telephone declaration', 'confirmation letter'],
  examples: ['we posted the letter confirming the gift aid he agreed on the phone', 'the written confirmation of a verbal declaration went out', 'we sent Derek the written record of his phone gift aid declaration', 'confirmation letter for a verbal gift aid agreement went out yesterday', 'mark the oral declaration as confirmed in writing', "the letter confirming Ruth's verbal gift aid was emailed on 3 June", "we've written to confirm the gift aid she gave by phone", 'verbal gift aid confirmed by post today', 'oral declaration confirmed', 'Keith posted the letter on Tuesday confirming the gift aid Mrs Nolan agreed by phone', 'I need to mark a phone gift aid as confirmed by letter'],
  input: z.object({ declarationId: z.uuid(), sentOn: isoDate.describe('The day it was sent (YYYY-MM-DD)') }),
  output: z.object({ declaration: declarationSchema }).strict(),
  run: async (ctx, input) => ({ declaration: await confirmOralDeclaration(ctx.db, ctx.org.id, input.declarationId, input.sentOn) }),
});

const listDeclarationsTool = tools.read('list_gift_aid_declarations', {
  title: 'List Gift Aid declarations',
  description: "Gift Aid declarations, newest first, optionally one giver's; each with its state (active, awaiting_confirmation for an unconfirmed oral one, cancelled, ended). Page with nextCursor.",
  keywords: ['gift aid', 'declarations', 'GAD'],
  examples: ['who has signed a gift aid form', 'which taxpayers have declarations still waiting for confirmation', 'does Ken have a gift aid declaration', 'list cancelled gift aid declarations', 'all active gift aid forms', 'which phone declarations still need a confirmation letter', "show Susan's gift aid declarations", 'how many people have gift aid in place', 'gift aid declarations', 'before the claim I want every donor whose phone declaration still needs its letter', 'has Beth got a gift aid declaration on file?'],
  input: z.object({ ...cursorInput, contactId: z.uuid().optional() }),
  output: z.object({ declarations: z.array(declarationSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listDeclarations(ctx.db, ctx.org.id, input),
});

// ---------------------------------------------------------------- claims

const MAX_CLAIM_LINES = 10_000;
const claimWindowInput = {
  receivedFrom: isoDate.optional().describe('Only gifts received on or after (YYYY-MM-DD)'),
  receivedTo: isoDate.optional().describe('Only gifts received on or before (YYYY-MM-DD); today when left out'),
  maxLines: z.number().int().min(1).max(MAX_CLAIM_LINES).default(MAX_CLAIM_LINES).describe('At most this many gifts; the oldest go first and the rest wait for the next claim'),
  includeGasds: z.boolean().default(true).describe('Also claim small donations (GASDS) recorded, within their caps'),
};

const problemSchema = z.object({ code: z.string(), message: z.string() }).strict();
const excludedSchema = z.object({
  donationId: z.uuid(), contactId: z.uuid().nullable(), receivedOn: z.string(), amount: money, problems: z.array(problemSchema),
}).strict();
const plannedLineSchema = z.object({
  kind: z.enum(['donation', 'adjustment']), donationId: z.uuid(), contactId: z.uuid().nullable(), giverName: z.string().nullable(),
  declarationId: z.uuid().nullable(), date: z.string(), amount: money, giftAid: money,
}).strict();
const totalsSchema = z.object({
  gross: money.describe('Gross of the Gift Aid lines, adjustments included'),
  giftAid: money.describe('25% of that gross, computed on the total per tax year and rounded down to the penny'),
  gasds: money.describe('Small donations claimed'),
  gasdsTopUp: money.describe('25% of the small donations'),
  payable: money.describe('giftAid + gasdsTopUp'),
}).strict();
const gasdsYearSchema = z.object({
  taxYear: z.string(), unclaimed: money, giftAidGross: money, alreadyClaimed: money, allowance: money, claiming: money,
}).strict();

const MAX_LISTED = 200;

function planOutput(plan: ClaimPlan, listLines: number) {
  const donations = plan.lines.filter((l) => l.kind === 'donation');
  const adjustments = plan.lines.filter((l) => l.kind === 'adjustment');
  const named = (line: ClaimPlan['lines'][number]) => ({ ...line, giverName: line.contactId ? plan.donors.get(line.contactId)?.displayName ?? null : null });
  return {
    totals: plan.totals,
    donationLines: donations.length,
    adjustmentLines: adjustments.length,
    deferred: plan.deferred,
    lines: [...adjustments, ...donations].slice(0, listLines).map(named),
    excludedCount: plan.excluded.length,
    excluded: plan.excluded.slice(0, MAX_LISTED),
    gasds: plan.gasdsYears,
  };
}

const planShape = {
  totals: totalsSchema,
  donationLines: z.number().int(),
  adjustmentLines: z.number().int().describe('Negative lines reversing Gift Aid claimed on gifts refunded since'),
  deferred: z.number().int().describe('Valid gifts left for the next claim (maxLines reached)'),
  lines: z.array(plannedLineSchema).describe('The first lines (adjustments first), up to listLines'),
  excludedCount: z.number().int(),
  excluded: z.array(excludedSchema).describe(`Gifts left out, each with every reason (the first ${MAX_LISTED})`),
  gasds: z.array(gasdsYearSchema).describe('Small donations per tax year: unclaimed, the cap left (lower of £8,000 and 10× Gift Aid gross), and what this claim takes'),
};

function windowOf(input: { receivedFrom?: string; receivedTo?: string; maxLines: number; includeGasds: boolean }) {
  const asOf = todayUtc();
  const receivedTo = input.receivedTo && input.receivedTo < asOf ? input.receivedTo : asOf;
  if (input.receivedFrom && input.receivedFrom > receivedTo) {
    throw new StewardError('validation_failed', 'receivedFrom is after receivedTo', { issues: [{ path: 'receivedFrom', message: 'must not be after receivedTo (or today)' }] });
  }
  return { asOf, receivedFrom: input.receivedFrom, receivedTo, maxLines: input.maxLines, includeGasds: input.includeGasds };
}

const previewClaimTool = tools.read('preview_gift_aid_claim', {
  title: 'Preview a Gift Aid claim',
  description: 'Shows what giving_create_gift_aid_claim would claim today, without claiming: every unclaimed gift in a committed batch checked line by line (a covering declaration, confirmed if oral; title, first and last name, house name or number and UK postcode; not a small-donations entry; a Gift Aid eligible fund; not refunded; within 4 years of the end of its tax year). Gifts with a problem are listed with every reason and left out, so the claim is never rejected whole. Adds negative adjustments for claimed gifts refunded since, and small donations within their caps.',
  keywords: ['gift aid', 'HMRC', 'claim', 'check claim', 'validate', 'GASDS', 'small donations'],
  examples: ['how much tax could we get back from HMRC right now', 'what would a gift aid claim include if we made one today', 'check which gifts would fail a gift aid claim and why', 'dry run of the next HMRC claim', 'which donors are missing a postcode for gift aid', 'how much could we claim back on small donations at the moment', 'any problems before we claim gift aid', 'estimate our next gift aid repayment', 'preview the gift aid claim', 'before Keith files anything, check what our claim would come to and any gifts that fail', 'what would we get back if we claimed gift aid today?'],
  input: z.object({ ...claimWindowInput, listLines: z.number().int().min(0).max(500).default(50).describe('How many lines to show') }),
  output: z.object({ claimedOn: z.string(), currency: z.literal('GBP'), ...planShape }).strict(),
  run: async (ctx, input) => {
    const currency = await requireSterling(ctx.db, ctx.org);
    const options = windowOf(input);
    const plan = await planClaim(ctx.db, ctx.org.id, options, false);
    return { claimedOn: options.asOf, currency, ...planOutput(plan, input.listLines) };
  },
});

const claimSchema = z.object({
  id: z.uuid(),
  status: z.enum(CLAIM_STATUSES),
  currency: z.string(),
  claimedOn: z.string(),
  grossTotal: money,
  giftAidTotal: money,
  gasdsTotal: money,
  gasdsTopUp: money,
  lineCount: z.number().int(),
  acceptedGiftAid: money.nullable(),
  paidAmount: money.nullable(),
  paidOn: z.string().nullable(),
  charityReference: z.string().nullable(),
  providerReference: z.string().nullable().describe("The gateway's reference for the submission"),
  validatedAt: z.string().nullable(),
  submittedAt: z.string().nullable(),
  approvedByUserId: z.uuid().nullable().describe('The owner or admin who approved the submission'),
  decidedAt: z.string().nullable(),
  decisionReason: z.string().nullable(),
  cancelledAt: z.string().nullable(),
  createdAt: z.string(),
}).strict();

const createClaimTool = tools.write('create_gift_aid_claim', {
  title: 'Create a Gift Aid claim',
  description: 'Creates a validated Gift Aid claim from exactly what giving_preview_gift_aid_claim shows: the valid gifts move from unclaimed to in_claim (two claims made at once never take one gift twice), refunded claimed gifts get negative adjustment lines, and small donations are added within their caps. Nothing leaves Steward yet: giving_submit_gift_aid_claim sends it once an owner or admin approves. Refused when no gift passes every check.',
  keywords: ['gift aid', 'HMRC', 'claim', 'reclaim tax'],
  examples: ['put together a gift aid claim for the gifts since the last one', 'make a claim to reclaim tax on donations', "create this quarter's gift aid claim", 'make the HMRC claim now', 'build a gift aid claim ready for approval', 'prepare the gift aid claim for everything unclaimed', 'draw up a new claim after cancelling the old one', 'start a claim to get our tax back', 'create a gift aid claim', 'the preview looks clean now the postcodes are fixed, so make the claim', 'I need to put together the next claim for HMRC'],
  input: z.object({ ...claimWindowInput }),
  output: z.object({ claim: claimSchema, ...planShape }).strict(),
  run: async (ctx, input) => {
    const { claim, plan } = await createClaim(ctx.db, ctx.org, ctx.principal.userId, windowOf(input));
    return { claim, ...planOutput(plan, 20) };
  },
});

const lineSchema = z.object({
  id: z.uuid(), kind: z.enum(['donation', 'adjustment', 'gasds']), donationId: z.uuid().nullable(), collectionId: z.uuid().nullable(),
  declarationId: z.uuid().nullable(), giftOn: z.string(), amount: money, giftAid: money,
  status: z.enum(['included', 'accepted', 'rejected', 'withdrawn']), rejectionReason: z.string().nullable(),
}).strict();

const getClaimTool = tools.read('get_gift_aid_claim', {
  title: 'Get a Gift Aid claim',
  description: 'One Gift Aid claim: its status (draft, validated, submitted, accepted, rejected, paid or cancelled), totals, references and who approved it, with a page of its lines (linesOffset to page on).',
  keywords: ['gift aid', 'claim status'],
  examples: ['where has our gift aid claim got to', 'which gifts are in the March claim', 'has HMRC accepted the January claim', 'show the lines in claim GA-2024-03', 'who approved the latest gift aid claim', 'total and status of our last claim', "what's the reference number of the gift aid claim we sent", 'open the draft claim and show its gifts', 'show the latest claim', 'Keith is on the phone to HMRC about the June claim, open it with its lines', 'has the March claim been paid?'],
  input: z.object({
    claimId: z.uuid(),
    linesLimit: z.number().int().min(0).max(500).default(50),
    linesOffset: z.number().int().min(0).max(MAX_CLAIM_LINES * 2).default(0),
  }),
  output: z.object({ claim: claimSchema, lines: z.array(lineSchema) }).strict(),
  run: async (ctx, input) => ({
    claim: await getClaim(ctx.db, ctx.org.id, input.claimId),
    lines: await claimLines(ctx.db, ctx.org.id, input.claimId, { limit: input.linesLimit, offset: input.linesOffset }),
  }),
});

const listClaimsTool = tools.read('list_gift_aid_claims', {
  title: 'List Gift Aid claims',
  description: 'Gift Aid claims, newest first, optionally by status, with their totals.',
  keywords: ['gift aid', 'claims', 'HMRC'],
  examples: ['our past claims to HMRC and what they were worth', 'list gift aid claims waiting to be submitted', 'all gift aid claims this year', 'which claims has HMRC paid', 'list rejected gift aid claims', 'how much have we claimed from HMRC over the years', 'any draft claims lying around', 'our gift aid claim history', 'all our claims', 'for the annual accounts I need every gift aid claim from last year with totals', 'which claims are still waiting on HMRC?'],
  input: z.object({
    status: z.enum(CLAIM_STATUSES).optional(),
    limit: z.number().int().min(1).max(100).default(25),
    offset: z.number().int().min(0).max(100_000).default(0),
  }),
  output: z.object({ claims: z.array(claimSchema) }).strict(),
  run: async (ctx, input) => ({ claims: await listClaims(ctx.db, ctx.org.id, input) }),
});

const cancelClaimTool = tools.write('cancel_gift_aid_claim', {
  title: 'Cancel a Gift Aid claim before submission',
  description: 'Cancels a claim that has not been submitted: its gifts go back to unclaimed and its lines are withdrawn. Use it when something changed after the claim was made (a refund, a corrected address), then create a new one.',
  keywords: ['gift aid', 'discard claim', 'withdraw claim'],
  examples: ['scrap the draft gift aid claim, it has mistakes', 'throw away a claim we have not sent', 'cancel the unsent claim, a refund came in since', 'withdraw the validated claim so we can redo it', 'get rid of this claim, an address was wrong', 'bin the gift aid claim before it goes to HMRC', 'discard the draft claim and put the gifts back', 'cancel claim 12, I need to recreate it', 'cancel the draft claim', "we spotted a wrong address after building the claim, so cancel it before it's submitted", "can I scrap a claim that hasn't gone to HMRC?"],
  input: z.object({ claimId: z.uuid(), reason }),
  output: z.object({ claim: claimSchema }).strict(),
  run: async (ctx, input) => ({ claim: await cancelClaim(ctx.db, ctx.org.id, input.claimId, input.reason) }),
});

const submitInput = z.object({
  claimId: z.uuid(),
  charityReference: z.string().trim().toUpperCase().regex(/^[A-Z]{1,2}\d{1,6}$/, "HMRC's charity reference, such as AB12345").max(8)
    .describe("The charity's HMRC reference (as on the Charities Online account)"),
  actionSummary: z.string().trim().max(500).optional().describe('Plain-English summary shown to the approver'),
}).strict();

interface Submitted {
  reference: string;
}

const submitClaimTool = tools.write('submit_gift_aid_claim', {
  title: 'Submit a Gift Aid claim to HMRC (needs approval)',
  description: "Sends a validated claim to HMRC through the Gift Aid gateway. The claim is a legal declaration by the charity's authorised official, so the call creates a proposal and the claim is sent only when an owner or admin approves it (platform_approve_proposal); the approver is recorded. Every line is checked again before it leaves: if anything changed (a refund, an address, a cancelled declaration) nothing is sent and the lines are named; cancel the claim and create a new one. Record HMRC's answer with giving_record_claim_outcome.",
  keywords: ['gift aid', 'HMRC', 'submit claim', 'charities online', 'authorised official'],
  examples: ['send the gift aid claim to the taxman', 'file our claim with HMRC', 'submit the validated gift aid claim', "send this quarter's claim to HMRC for approval", 'lodge our gift aid claim online with HMRC', 'the claim is ready, file it through the gateway', 'put the claim in to HMRC', 'submit the gift aid claim once the treasurer signs it off', 'submit the claim', 'Keith has checked the claim and is the authorised official, send it to HMRC', 'can you file our gift aid claim now?'],
  input: submitInput,
  output: z.object({ claim: claimSchema }).strict(),
  approval: {
    kind: 'gated',
    when: {
      reason: 'every Gift Aid submission is a legal declaration approved by an owner or admin',
      // Always applies; asking first refuses, before any proposal exists, a claim that is missing, another organisation's or not validated.
      applies: async (args, { db, orgId }) => {
        const claim = await getClaim(db, orgId, submitInput.parse(args).claimId);
        if (claim.status !== 'validated') {
          throw new StewardError('conflict', `The claim is ${claim.status}; only a validated claim can be submitted`, { details: { claimId: claim.id, status: claim.status } });
        }
        return true;
      },
    },
  },
  task: {},
  // The gateway is called here, after approval and outside any transaction; the claim id is its idempotency key, so a retry cannot submit twice.
  prepare: async (input, { db, org }): Promise<Submitted> => {
    const today = todayUtc();
    const check = await checkForSubmission(db, org.id, input.claimId, today);
    if (check.claim.status === 'submitted' && check.claim.providerReference) return { reference: check.claim.providerReference };
    if (check.claim.status !== 'validated') {
      throw new StewardError('conflict', `The claim is ${check.claim.status}; only a validated claim can be submitted`, { details: { claimId: input.claimId, status: check.claim.status } });
    }
    if (check.problems.length > 0) {
      throw new StewardError('validation_failed', `${check.problems.length} line(s) of the claim would now fail; nothing was sent`, {
        hint: 'Cancel this claim (giving_cancel_gift_aid_claim), fix or leave out those gifts, and create a new claim.',
        details: { lines: check.problems.slice(0, 50) },
      });
    }
    const provider = giftAidProviderFromEnv();
    return provider.submit({ ...check.payload, claimId: input.claimId, charityReference: input.charityReference });
  },
  run: async (ctx, input) => {
    const submitted = ctx.prepared as Submitted;
    return { claim: await recordSubmission(ctx.db, ctx.org.id, input.claimId, { reference: submitted.reference, charityReference: input.charityReference, approvedByUserId: ctx.principal.userId }) };
  },
});

const recordOutcomeTool = tools.write('record_claim_outcome', {
  title: "Record HMRC's answer to a Gift Aid claim",
  description: "Records what HMRC decided on a submitted claim. accepted: its gifts become claimed, except any rejectedLines (by donationId, with HMRC's reason), which go back to unclaimed for a later claim. rejected: the whole claim failed (reason required); every gift goes back to unclaimed. paid: an accepted claim's money arrived (paidOn, paidAmount).",
  keywords: ['gift aid', 'HMRC decision', 'claim accepted', 'claim rejected', 'repayment received'],
  examples: ['HMRC paid our claim, note the repayment', 'the tax office rejected the claim, record it', 'HMRC accepted our claim but rejected two lines', 'gift aid money of £1,240 arrived on 12 May', 'record that the claim was accepted', 'the gift aid repayment landed in the bank', 'HMRC turned down the claim because of missing postcodes', "note HMRC's decision on the March claim", 'claim accepted by HMRC', "HMRC's letter came today saying they rejected three lines for missing addresses, record that", 'I need to log that the gift aid money arrived'],
  input: z.object({
    claimId: z.uuid(),
    outcome: z.enum(['accepted', 'rejected', 'paid']),
    reason: z.string().trim().max(500).optional().describe("HMRC's reason (required for rejected)"),
    rejectedLines: z.array(z.object({ donationId: z.uuid(), reason })).max(MAX_CLAIM_LINES).optional().describe('accepted only: lines HMRC refused'),
    paidOn: isoDate.optional(),
    paidAmount: nonNegativeMinorUnits.optional().describe('paid only: pence received'),
  }),
  output: z.object({ claim: claimSchema }).strict(),
  run: async (ctx, input) => {
    if (input.rejectedLines?.length && input.outcome !== 'accepted') {
      throw new StewardError('validation_failed', 'rejectedLines go with an accepted outcome; a rejected claim rejects every line', { issues: [{ path: 'rejectedLines', message: 'only with outcome accepted' }] });
    }
    return { claim: await recordOutcome(ctx.db, ctx.org.id, input.claimId, input) };
  },
});

// ---------------------------------------------------------------- small donations

const gasdsCollectionSchema = z.object({
  id: z.uuid(), collectedOn: z.string(), taxYear: z.string(), method: z.enum(GASDS_METHODS), amount: money, giftCount: z.number().int(),
  donationId: z.uuid().nullable(), description: z.string().nullable(),
  entries: z.array(z.object({ amount: money, quantity: z.number().int() }).strict()), claimDeadline: z.string(), createdAt: z.string(),
}).strict();

const recordGasdsTool = tools.write('record_gasds_collection', {
  title: 'Record small donations (GASDS)',
  description: `Records cash or contactless small donations collected on one day under the Gift Aid Small Donations Scheme: no declaration, each gift at most ${GASDS_MAX_GIFT} pence (£30); give them as entries of amount × quantity. donationId links the donation that booked the money (then never a Gift Aid line). Claims take them within the caps: £8,000 of small donations a tax year, and at most 10× the Gift Aid donations claimed for the same year; within 2 years of the tax year's end.`,
  keywords: ['GASDS', 'small donations', 'cash collection', 'contactless', 'plate', 'top-up'],
  examples: ['£180 of loose cash in the plate on Sunday', 'contactless small donations from the coffee morning', 'record small donations: 30 x £5 and 20 x £2 from Sunday', 'loose cash from the carol service, £420, for the small donations scheme', 'tap-to-give small gifts from the summer fete', 'put down the open plate for the small donations scheme', 'GASDS top-up cash from the 10am service', 'anonymous loose change from the wedding collection, £95', 'small donations £240', 'after the Christmas Eve crib service there was £310 in loose coins, log it under GASDS', 'can we record loose plate cash for the top-up scheme?'],
  input: z.object({
    collectedOn: isoDate.describe('YYYY-MM-DD; not in the future'),
    method: z.enum(GASDS_METHODS),
    entries: z.array(z.object({
      amount: z.number().int().min(1).max(100_000).describe(`Pence per gift, at most ${GASDS_MAX_GIFT}`),
      quantity: z.number().int().min(1).max(100_000).default(1).describe('How many gifts of this amount'),
    })).min(1).max(500),
    donationId: z.uuid().optional(),
    description: z.string().trim().max(500).optional(),
  }),
  output: z.object({ collection: gasdsCollectionSchema }).strict(),
  run: async (ctx, input) => {
    await requireSterling(ctx.db, ctx.org);
    return { collection: await recordGasdsCollection(ctx.db, ctx.org.id, ctx.principal.userId, input, todayUtc()) };
  },
});

const taxYearInput = z.string().trim().max(7).describe('A UK tax year, e.g. 2025-26 (6 April to 5 April)');

function taxYearOrRefuse(label: string) {
  const year = parseTaxYear(label);
  if (!year) throw new StewardError('validation_failed', `"${label}" is not a tax year`, { issues: [{ path: 'taxYear', message: 'expected YYYY-YY, e.g. 2025-26' }] });
  return year;
}

const listGasdsTool = tools.read('list_gasds_collections', {
  title: 'List small-donations collections (GASDS)',
  description: 'Small-donations collections, newest first, optionally of one tax year, each with how much claims have taken (claimed) and its claim deadline. giving_preview_gift_aid_claim shows what the next claim would take within the caps.',
  keywords: ['GASDS', 'small donations', 'cash collections', 'top-up', 'plate collections', 'loose cash'],
  examples: ['loose plate cash we have recorded this tax year', 'how much small-donations money is left to claim', "small donations we've logged since April", 'GASDS collections and when they must be claimed by', 'how much of the loose cash has already been claimed', 'list the plate collections under the small donations scheme', 'any small donation collections close to their claim deadline', 'GASDS records for the 2023-24 tax year', 'which GASDS collections have we recorded', 'show the small donations collections for last tax year', 'how much loose offering cash from April to now have we logged', 'list our cash collection entries and their claim deadlines'],
  input: z.object({
    taxYear: taxYearInput.optional(),
    limit: z.number().int().min(1).max(100).default(25),
    offset: z.number().int().min(0).max(100_000).default(0),
  }),
  output: z.object({
    collections: z.array(z.object({
      id: z.uuid(), collectedOn: z.string(), taxYear: z.string(), method: z.enum(GASDS_METHODS), amount: money, giftCount: z.number().int(),
      donationId: z.uuid().nullable(), description: z.string().nullable(), claimed: money, claimDeadline: z.string(),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => ({
    collections: await listGasdsCollections(ctx.db, ctx.org.id, { ...input, taxYear: input.taxYear === undefined ? undefined : taxYearOrRefuse(input.taxYear) }),
  }),
});

// ---------------------------------------------------------------- statements

const DELIVERY_STATUSES = ['queued', 'sent', 'failed', 'no_email'] as const;

const deliverySchema = z.object({
  status: z.enum(DELIVERY_STATUSES).nullable()
    .describe('Email delivery: queued (waiting to go), sent, failed (see error), no_email (the giver had no address); null for a statement made for download'),
  error: z.object({ code: z.string(), message: z.string() }).strict().nullable().describe('Why the email did not go'),
  sentAt: z.string().nullable().describe('When the mail server took it'),
}).strict();

const statementSummarySchema = z.object({
  id: z.uuid(), contactId: z.uuid().nullable(), donationCount: z.number().int(), totalAmount: money, giftAidClaimed: money, delivery: deliverySchema,
}).strict();

const statementWithRunSchema = statementSummarySchema.extend({ runId: z.uuid() }).strict();

const generateStatementsTool = tools.send('generate_statements', {
  title: 'Generate giving statements',
  description: `Generates a giving statement for each giver with gifts in a tax year (taxYear "2025-26") or a period (periodStart, periodEnd), for every giver or the contactIds given (at most ${MAX_STATEMENTS_PER_RUN} a run). Counts committed donations only, each net of refunds; fully refunded gifts are left out. delivery "download" (default): read each with giving_get_statement. delivery "email": each giver with an email address is emailed their statement once the call is made (a service message, so marketing consent is not needed; never to an erased contact); givers without an address are listed in givers.withoutEmail. Generating an email run again for the same period makes no copy of a statement that has not changed: it is listed under unchanged and is never emailed twice. Delivery states are in giving_list_statements and giving_get_statement; giving_resend_statements retries failed ones.`,
  keywords: ['statement', 'tax receipt', 'annual giving statement', 'donor statement', 'email statements'],
  examples: ['make the annual giving letters for everyone for 2025-26', "produce tax receipts for this year's donors", 'email every giver their statement for last tax year', 'create a giving statement for the Wilsons for 2024', 'produce donor statements for April to December', 'run the yearly giving summaries for all donors', 'make statements to download and print for the older givers', 'send out annual tax statements to all donors by email', 'make giving statements', "it's April so the donors need their annual statements for the tax year, run them and email them", 'can we produce statements for everyone who gave last year?'],
  input: z.object({
    taxYear: taxYearInput.optional(),
    periodStart: isoDate.optional(),
    periodEnd: isoDate.optional(),
    contactIds: z.array(z.uuid()).min(1).max(MAX_STATEMENTS_PER_RUN).optional(),
    delivery: z.enum(['download', 'email']).default('download').describe('download (read them with giving_get_statement) or email (each giver with an address gets theirs)'),
  }),
  output: z.object({
    run: z.object({
      id: z.uuid(), taxYear: z.string().nullable(), periodStart: z.string(), periodEnd: z.string(), delivery: z.enum(['download', 'email']),
      statementCount: z.number().int().describe('Statements made by this run'), createdAt: z.string(),
    }).strict(),
    statements: z.array(statementSummarySchema).describe('The statements this run made; emailed ones are queued here and sent once the call is made'),
    unchanged: z.array(statementWithRunSchema).describe('Email runs: statements an earlier run of the same period already made with exactly these gifts; not made again, emailed only if they have not gone yet'),
    givers: z.object({
      withGifts: z.number().int(),
      withoutGifts: z.array(z.uuid()).describe('contactIds given that had no gift in the period'),
      withoutEmail: z.array(z.uuid()).describe('Email runs: givers with a statement but no email address (download theirs instead)'),
    }).strict(),
  }).strict(),
  // Sending needs only this tool's scope (giving:write), with no approval step: a person asked for the statements, which go to the givers themselves.
  followUp: { kind: 'giving.send_statements' },
  run: async (ctx, input) => generateStatements(ctx.db, ctx.org, ctx.principal.userId, input),
});

const resendStatementsTool = tools.send('resend_statements', {
  title: 'Email giving statements again',
  description: 'Emails the statements of a run (runId) or one statement (statementId) that have not gone: failed ones, ones whose giver had no address (after one was added), and download statements. A statement already sent is never emailed again. Returns each statement named with its delivery as queued; giving_list_statements shows how they went.',
  keywords: ['resend statement', 'email statement', 'statement failed', 're-send statements', 'retry statements'],
  examples: ['email the giving statements that bounced again', 'send Harold his statement now that we have his email', 'try again sending the statements that failed', "re-email Mrs Hart's giving statement", 'email the statements we only downloaded last time', "resend the 2024-25 statements that didn't go through", "Bob's email address is fixed now, send his statement again", "send the leftover statements from last week's run", 'Dorothy has given us her email, send her giving statement', "retry the giving statements that didn't deliver", 'email out the statements from the last run that are still unsent', 'the statement for Alan bounced, his address is fixed, try again'],
  input: z.object({ runId: z.uuid().optional(), statementId: z.uuid().optional() }).refine(...exactlyOne('runId', 'statementId')),
  output: z.object({ statements: z.array(statementWithRunSchema) }).strict(),
  followUp: { kind: 'giving.send_statements' },
  run: async (ctx, input) => ({ statements: await queueStatementsForEmail(ctx.db, ctx.org.id, input) }),
});

const statementLineSchema = z.object({
  donationId: z.uuid(), date: z.string(), amount: money, method: z.string(), funds: z.array(z.string()), giftAidStatus: z.string(),
}).strict();

const getStatementTool = tools.read('get_statement', {
  title: 'Get a giving statement',
  description: "One giver's statement from a run: its gifts, total and Gift Aid claimed, its email delivery (queued, sent, failed with the reason, or no_email), and the text to download or print.",
  keywords: ['statement', 'download statement', 'tax receipt'],
  examples: ["print Margaret's giving statement", "what does one donor's annual statement say", "show me the Robinsons' statement for 2024-25", "why did Alan's statement email fail", 'open one statement so I can print it', "how much gift aid does Jane's statement show", 'text of the giving statement for envelope 42', "was Mary's statement actually sent", "Beth's statement", 'Colin says he never got his annual statement, show me his and whether the email went', "what's on Mrs Nolan's giving statement?"],
  input: z.object({ statementId: z.uuid() }),
  output: z.object({
    statement: statementSummarySchema,
    runId: z.uuid(),
    content: z.object({
      organisation: z.string(),
      giver: z.object({ contactId: z.uuid(), name: z.string(), houseNameOrNumber: z.string().nullable(), postcode: z.string().nullable() }).strict(),
      periodStart: z.string(), periodEnd: z.string(), taxYear: z.string().nullable(), currency: z.string(),
      lines: z.array(statementLineSchema), total: money, giftAidClaimed: money,
    }).strict(),
    text: z.string(),
    createdAt: z.string(),
  }).strict(),
  run: async (ctx, input) => {
    const { summary, ...rest } = await getStatement(ctx.db, ctx.org.id, input.statementId);
    return { statement: summary, ...rest };
  },
});

const listStatementsTool = tools.read('list_statements', {
  title: 'List giving statements',
  description: "Giving statements generated, newest first: one run's (runId), one giver's (contactId), or all, optionally by email delivery status; with each statement's period, total, Gift Aid claimed and delivery. Read one with giving_get_statement.",
  keywords: ['statements', 'tax receipts', 'annual statements', 'giving statements', 'donation receipts'],
  examples: ['which giving statements failed to send', 'the statements we produced last April', 'all giving statements for Peter', "which statements haven't been emailed yet", 'statements from the last run and their delivery status', 'list the 2024-25 donor statements', 'which donors had no email address for their statement', 'did all the annual statements go out', "show the giving statements we've produced", "did Dorothy's annual giving statement get emailed", "list last year's tax statements that bounced", 'which statements in the April run were downloads only'],
  input: z.object({
    runId: z.uuid().optional(),
    contactId: z.uuid().optional(),
    deliveryStatus: z.enum(DELIVERY_STATUSES).optional().describe('Only statements whose email is in this state'),
    limit: z.number().int().min(1).max(100).default(25),
    offset: z.number().int().min(0).max(100_000).default(0),
  }),
  output: z.object({
    statements: z.array(statementSummarySchema.extend({
      runId: z.uuid(), periodStart: z.string(), periodEnd: z.string(), taxYear: z.string().nullable(), createdAt: z.string(),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => ({ statements: await listStatements(ctx.db, ctx.org.id, input) }),
});

/** Gift Aid declarations and claims, GASDS, statements. */
export const giftAidTools: readonly AnyTool[] = [
  recordDeclarationTool, cancelDeclarationTool, confirmDeclarationTool, listDeclarationsTool, previewClaimTool, createClaimTool,
  getClaimTool, listClaimsTool, cancelClaimTool, submitClaimTool, recordOutcomeTool, recordGasdsTool, listGasdsTool, generateStatementsTool, resendStatementsTool, listStatementsTool, getStatementTool,
];
