import { z } from 'zod';
import { calendarDate, toolsFor } from '../../../../kit';

import {
  CHECK_STATUSES, createSafeguardingCheck, createSafeguardingPolicy, listSafeguardingChecks, listSafeguardingPolicies, removeSafeguardingCheck,
  removeSafeguardingPolicy, safeguardingCheckSchema, safeguardingPolicySchema, safeguardingSummary, setSafeguardingCheck, setSafeguardingPolicy,
} from '../safeguarding';
import { contactIdArg } from './common';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const checkId = z.uuid().describe('The safeguarding check\'s id');
const policyId = z.uuid().describe('The safeguarding policy\'s id');

const checkFields = {
  checkType: z.string().trim().min(1).max(80).describe('What kind of check, e.g. "Enhanced DBS", "Safeguarding training level 2"'),
  certificateNumber: z.string().trim().min(4).max(60).describe('The certificate number; only a keyed hash and its last four characters are kept'),
  issuedOn: calendarDate().describe('Date issued (YYYY-MM-DD); without it the check is pending'),
  expiresOn: calendarDate().describe('Date it expires or is due for renewal (YYYY-MM-DD)'),
  notes: z.string().trim().max(2000).describe('Notes for the safeguarding lead'),
};

const policyFields = {
  title: z.string().trim().min(1).max(200).describe('Policy title, e.g. "Safeguarding children and adults at risk"'),
  version: z.string().trim().min(1).max(40).describe('Version label, e.g. "2026.1"'),
  reviewOn: calendarDate().describe('Next review date (YYYY-MM-DD)'),
  ownerUserId: z.uuid().describe('The team member responsible for the policy'),
  notes: z.string().trim().max(2000).describe('Notes'),
};

export const createSafeguardingCheckTool = tools.write('create_safeguarding_check', {
  title: 'Record a safeguarding check',
  description: 'Records a safeguarding check (DBS or similar, or training) for a person. Status comes from the dates: pending until issued, then completed, expiring within 60 days of expiry, overdue after. The certificate number is kept only as a keyed hash plus its last four characters.',
  keywords: ['dbs', 'dbs check', 'background check', 'safeguarding check', 'pvg', 'vetting'],
  examples: ['record Sarah\'s enhanced DBS', 'add a DBS check for a new children\'s worker', "log Tom's DBS certificate issued 3 May", 'new enhanced disclosure applied for the youth leader', "record Jane's safeguarding training done last week", 'PVG check for our new volunteer in Edinburgh', "Mike's applied for his DBS, put it on as pending", 'add a vetting record for the new crèche helper', "add Grace's DBS", "Ian's starting with kids' work next month and his enhanced DBS was issued on 2 June, record it", 'I need to log safeguarding training for the crèche team'],
  scope: 'people:safeguarding',
  input: z.object({
    contactId: contactIdArg, checkType: checkFields.checkType, certificateNumber: checkFields.certificateNumber.optional(),
    issuedOn: checkFields.issuedOn.optional(), expiresOn: checkFields.expiresOn.optional(), notes: checkFields.notes.optional(),
  }),
  output: z.object({ check: safeguardingCheckSchema }).strict(),
  run: async (ctx, input) => ({ check: await createSafeguardingCheck(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

export const setSafeguardingCheckTool = tools.write('set_safeguarding_check', {
  title: 'Change a safeguarding check',
  description: 'Changes the fields given of a safeguarding check (null clears a date, notes or the certificate number); the status is recomputed from the dates.',
  keywords: ['renew dbs', 'update dbs', 'dbs issued'],
  examples: ['her DBS came back today', 'update the expiry of a check', "Ruth's DBS renewal is through, update the issue date", "correct the certificate number on Bob's DBS", "change the expiry date on Pat's check", "Kate's safeguarding training has been renewed until 2027", "clear the wrong expiry date on Jim's DBS", "add a note to Sarah's check about the portability", "update Ian's DBS", "Grace's renewal certificate came through today, put the new issue date on her check", "can you fix the expiry on Ruth's safeguarding training?"],
  scope: 'people:safeguarding',
  input: z.object({
    checkId, checkType: checkFields.checkType.optional(), certificateNumber: checkFields.certificateNumber.nullable().optional(),
    issuedOn: checkFields.issuedOn.nullable().optional(), expiresOn: checkFields.expiresOn.nullable().optional(), notes: checkFields.notes.nullable().optional(),
  }),
  output: z.object({ check: safeguardingCheckSchema, changed: z.array(z.string()).describe('The fields this call changed') }).strict(),
  run: async (ctx, input) => {
    const { checkId: id, ...changes } = input;
    return setSafeguardingCheck(ctx.db, ctx.org.id, id, changes);
  },
});

export const removeSafeguardingCheckTool = tools.write('remove_safeguarding_check', {
  title: 'Remove a safeguarding check',
  description: 'Deletes a safeguarding check record, e.g. one entered against the wrong person.',
  keywords: ['delete dbs', 'delete check', 'remove vetting'],
  examples: ['remove a check recorded by mistake', "delete Mike's DBS, it was entered under Mick", 'that duplicate DBS record, get rid of it', 'bin the DBS I added to the wrong volunteer', 'remove the training record I put in twice', 'scrap the vetting entry for Sam, it was a test', "take the old DBS off Jo's record, it was a mistake", 'delete the safeguarding check I put against the wrong Sarah', 'remove that DBS entry, it belongs to someone else', 'wipe the test vetting record for Chris', 'the training certificate was logged twice for Amy, delete one'],
  scope: 'people:safeguarding',
  destructive: true,
  input: z.object({ checkId }),
  output: z.object({ check: safeguardingCheckSchema, removed: z.literal(true) }).strict(),
  run: async (ctx, input) => ({ check: await removeSafeguardingCheck(ctx.db, ctx.org.id, input.checkId), removed: true as const }),
});

export const listSafeguardingChecksTool = tools.read('list_safeguarding_checks', {
  title: 'Safeguarding checks',
  description: 'Safeguarding checks, soonest expiry first (needs people:safeguarding); filter by person, status (pending, completed, expiring, overdue) or a certificate number (matched by its hash).',
  keywords: ['dbs list', 'expiring dbs', 'overdue checks', 'who needs a dbs'],
  examples: ['whose DBS is running out', 'is this certificate number already on file', 'which volunteers have a DBS expiring soon', 'list all pending DBS applications', 'has Karen got a DBS on file', 'who is overdue safeguarding training', 'all our DBS checks, soonest to expire first', 'lapsed checks among the youth team', 'DBS checks expiring', "the diocese is auditing us next month, list everyone's checks by expiry", 'which youth leaders still have their DBS pending?'],
  scope: 'people:safeguarding',
  input: z.object({
    contactId: contactIdArg.optional(),
    status: z.enum(CHECK_STATUSES).optional().describe('Only checks with this status'),
    certificateNumber: checkFields.certificateNumber.optional().describe('Find the check with this certificate number'),
    limit: z.number().int().min(1).max(500).default(100).describe('At most this many'),
  }),
  output: z.object({ checks: z.array(safeguardingCheckSchema) }).strict(),
  run: async (ctx, input) => {
    return { checks: await listSafeguardingChecks(ctx.db, ctx.org.id, input) };
  },
});

export const getSafeguardingSummaryTool = tools.read('get_safeguarding_summary', {
  title: 'Safeguarding summary',
  description: 'Needs people:safeguarding. Checks by status, how many people hold a current check, the checks expiring or overdue, and policies due for review.',
  keywords: ['safeguarding overview', 'dbs status', 'compliance'],
  examples: ['how are we doing on safeguarding', 'which checks need renewing', 'safeguarding compliance at a glance', 'how many of our workers have a current DBS', 'quick safeguarding health check for the PCC report', 'totals of overdue and expiring checks plus policy reviews', 'are we compliant on vetting this term', 'safeguarding position in numbers', 'safeguarding headline figures', "the bishop's visit is coming so I need our DBS and policy position at a glance", 'are any checks or policies overdue?'],
  scope: 'people:safeguarding',
  input: z.object({}),
  output: z.object({
    checksByStatus: z.object({ pending: z.number().int(), completed: z.number().int(), expiring: z.number().int(), overdue: z.number().int() }).strict(),
    peopleWithCurrentCheck: z.number().int(),
    peopleWithAnyCheck: z.number().int(),
    needingAttention: z.array(safeguardingCheckSchema).describe('Expiring and overdue checks, soonest first (at most 50)'),
    policies: z.object({ total: z.number().int(), reviewDue: z.number().int(), reviewOverdue: z.number().int() }).strict(),
    expiringWithinDays: z.number().int(),
  }).strict(),
  run: async (ctx) => {
    return safeguardingSummary(ctx.db, ctx.org.id);
  },
});

export const createSafeguardingPolicyTool = tools.write('create_safeguarding_policy', {
  title: 'Record a safeguarding policy',
  description: 'Records a safeguarding policy with its version, next review date and owner (a team member).',
  keywords: ['safeguarding policy', 'policy review'],
  examples: ['add our safeguarding policy, reviewed every year', 'add our new lone working policy, review next March', 'record the safeguarding policy version 1, owned by Anne', "put the children's safeguarding policy on file", "we've adopted a vulnerable adults policy, record it", 'log our whistleblowing policy with Revd Mark as owner', 'new safeguarding policy to review every two years', 'add our online safety policy', 'the PCC approved a new photography policy tonight, record it with Ian as owner', 'I need to put our domestic abuse policy on file with a review date'],
  scope: 'people:safeguarding',
  input: z.object({
    title: policyFields.title, version: policyFields.version, reviewOn: policyFields.reviewOn.optional(),
    ownerUserId: policyFields.ownerUserId.optional(), notes: policyFields.notes.optional(),
  }),
  output: z.object({ policy: safeguardingPolicySchema }).strict(),
  run: async (ctx, input) => ({ policy: await createSafeguardingPolicy(ctx.db, ctx.org.id, input) }),
});

export const setSafeguardingPolicyTool = tools.write('set_safeguarding_policy', {
  title: 'Change a safeguarding policy',
  description: 'Changes the fields given of a safeguarding policy (e.g. a new version after review and the next review date).',
  keywords: ['policy reviewed', 'new policy version'],
  examples: ['we reviewed the policy, it is now version 3', 'PCC adopted the updated policy, version 4, next review June 2026', 'change the policy owner to Revd Mark', 'push back the review date of the lone working policy', 'the adults at risk policy has been revised, update it', "mark the children's policy as reviewed today", 'change the name of the safeguarding policy record', 'policy now version 5', 'we reviewed the online safety policy at the PCC so set its next review to next May', 'can Grace take over as owner of the photography policy?'],
  scope: 'people:safeguarding',
  input: z.object({
    policyId, title: policyFields.title.optional(), version: policyFields.version.optional(), reviewOn: policyFields.reviewOn.nullable().optional(),
    ownerUserId: policyFields.ownerUserId.nullable().optional(), notes: policyFields.notes.nullable().optional(),
  }),
  output: z.object({ policy: safeguardingPolicySchema, changed: z.array(z.string()).describe('The fields this call changed') }).strict(),
  run: async (ctx, input) => {
    const { policyId: id, ...changes } = input;
    return setSafeguardingPolicy(ctx.db, ctx.org.id, id, changes);
  },
});

export const removeSafeguardingPolicyTool = tools.write('remove_safeguarding_policy', {
  title: 'Remove a safeguarding policy',
  description: 'Deletes a safeguarding policy record, e.g. one replaced by a new policy.',
  keywords: ['delete policy', 'retire policy', 'remove policy'],
  examples: ['remove an old policy we replaced', 'delete the 2019 safeguarding policy', 'bin the old anti-bullying policy record', 'get rid of the policy that was superseded', 'remove the duplicate lone working policy', 'scrap the policy entered by mistake', 'take the retired online safety policy off our list', "we've replaced the whistleblowing policy, remove the old one", "delete the 2020 children's safeguarding policy record", 'take the old adults at risk policy off the list', 'the photography policy entry was a duplicate, delete it'],
  scope: 'people:safeguarding',
  destructive: true,
  input: z.object({ policyId }),
  output: z.object({ policy: safeguardingPolicySchema, removed: z.literal(true) }).strict(),
  run: async (ctx, input) => ({ policy: await removeSafeguardingPolicy(ctx.db, ctx.org.id, input.policyId), removed: true as const }),
});

export const listSafeguardingPoliciesTool = tools.read('list_safeguarding_policies', {
  title: 'Safeguarding policies',
  description: 'The organisation\'s safeguarding policies with version, review date and whether a review is due (needs people:safeguarding).',
  keywords: ['policies', 'policy review dates', 'safeguarding policies', 'policy list'],
  examples: ['which policies are due for review', 'when is our safeguarding policy next up for review', 'show all our policies and their versions', 'list our safeguarding policies', 'which policies are overdue a review', 'who owns each safeguarding policy', "what version of the children's policy are we on", 'what safeguarding policies do we have on file', 'are any of our policies past their review date', 'show every policy with its version number', 'when was the lone working policy last reviewed?'],
  scope: 'people:safeguarding',
  input: z.object({}),
  output: z.object({ policies: z.array(safeguardingPolicySchema) }).strict(),
  run: async (ctx) => {
    return { policies: await listSafeguardingPolicies(ctx.db, ctx.org.id) };
  },
});
