import { z } from 'zod';
import { OUTREACH_CHANNELS } from '../../../../core/approvals';
import { assertDateRange, toolsFor } from '../../../kit';
import type { TimelineSync, ToolContext } from '../../../tool';
import { parseOrgDate } from '../../dates';
import { todayUtc } from '../../../metrics';
import { outreachItemSchema } from '../../outreach';
import { dateText } from '../../schemas';
import { canSeeRestricted, pastoralPrivacyInput } from '../privacy';
import {
  GRIEF_TOUCHPOINT_SOURCE, GRIEF_TOUCHPOINT_STATUSES, LIFE_EVENT_INTENTS, LIFE_EVENT_REMOVAL_SOURCE, LIFE_EVENT_SOURCE, LIFE_EVENT_STATUSES,
  LIFE_EVENT_TYPES,
} from './constants';
import { lifeEventsCalendar, lifeEventsReportCsv } from './exports';
import { getPastoralSettings } from '../care/settings';
import { griefPlanFor, stepOfSetting } from './grief-plan';
import { generateLifeEventMessage } from './message';
import { lifeEventsRadar, radarItemSchema } from './radar';
import {
  celebrateLifeEvent, completeGriefTouchpoint, griefTouchpointSchema, isRestrictedLifeEvent, lifeEventSchema, listGriefTouchpoints,
  listLifeEvents, recordLifeEvent, removeLifeEvent, setLifeEventStatus, updateLifeEvent, type LifeEvent,
} from './service';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

const contactId = z.uuid().describe('The contact\'s id');
const lifeEventId = z.uuid().describe('The life event\'s id');
const limit = z.number().int().min(1).max(200).default(50).describe('At most this many');
const orgDate = (what: string) => dateText().describe(`${what}, in the organisation's date format or YYYY-MM-DD`);
const RESTRICTED_RULE = 'Private and confidential (amber/red) life events appear only for callers holding people:safeguarding; for anyone else they behave as missing.';

const griefPlanOutput = z.object({
  lifeEventId: z.uuid(),
  change: z.enum(['opened', 'rescheduled', 'ended']).describe('What happened to the bereavement\'s grief-care plan'),
  touchpoints: z.array(griefTouchpointSchema),
}).strict().nullable();

/** A life event's care-timeline entry: restricted with the event, so the timeline follows the same rule. */
function eventTimeline(event: LifeEvent, kind: string, summary: string): TimelineSync {
  return { contactId: event.contactId, kind, sourceKind: LIFE_EVENT_SOURCE, sourceId: event.id, summary, restricted: isRestrictedLifeEvent(event) };
}

const kindWords = (event: Pick<LifeEvent, 'type'>) => event.type.replace(/_/g, ' ');

/** Dates in filters: the organisation's format or ISO, read before any query. */
function parseFilterDate(value: string | undefined, field: string, dateFormat: 'DMY' | 'MDY' | 'YMD'): string | undefined {
  return value === undefined ? undefined : parseOrgDate(value, dateFormat, field);
}


export const recordLifeEventTool = tools.write('record_life_event', {
  title: 'Record a life event',
  description: 'Records a life event (birth, marriage, bereavement, illness, new job, moving, baptism…) to celebrate or support, on the care timeline. A bereavement opens a grief-care plan whose touchpoints surface when due. Private or amber/red events are seen only with people:safeguarding.',
  keywords: ['life event', 'bereavement', 'death', 'funeral', 'new baby', 'wedding', 'hospital', 'diagnosis', 'new job', 'moved house', 'grief'],
  examples: ['Margaret\'s husband died last Tuesday', 'the Okafors had a baby girl', 'record that Tom is in hospital', 'Doris has been diagnosed with cancer', "Jean's mum passed away on Sunday", 'Dave has started a new job at the hospital', 'the Hendersons have moved house to Leeds', 'note that Amy and Josh got married on Saturday', 'Brian lost his wife last week, please put it down', 'Hilda is in hospital', 'Ruth and Ian have just had twins, please put that down so we can celebrate', "I need to record that Colin's wife died yesterday"],
  listed: true,
  input: z.object({
    contactId,
    type: z.enum(LIFE_EVENT_TYPES).describe('What kind of event'),
    title: z.string().trim().min(1).max(200).describe('A short line a pastor would write, e.g. "Loss of her father" or "Baby Grace born"'),
    details: z.string().trim().min(1).max(5000).optional().describe('More about it, if helpful'),
    eventDate: orgDate('When it happened or will happen (default today); a bereavement cannot be in the future').optional(),
    intent: z.enum(LIFE_EVENT_INTENTS).optional().describe('celebrate or support; default from the type (bereavement and illness: support; birth and marriage: celebrate)'),
    shareWithCommunity: z.boolean().optional().describe('The person agreed to it being shared with the congregation (default false)'),
    ...pastoralPrivacyInput,
  }),
  output: z.object({ lifeEvent: lifeEventSchema, griefPlan: griefPlanOutput }).strict(),
  followUp: { kind: 'people.grief_plan' },
  timeline: (_input, output) => [eventTimeline(output.lifeEvent, 'life_event_recorded', `Life event (${kindWords(output.lifeEvent)}): ${output.lifeEvent.title}`)],
  run: async (ctx, input) => {
    const settings = await getPastoralSettings(ctx.db, ctx.org.id);
    const recorded = await recordLifeEvent(ctx.db, ctx.org, ctx.principal.userId, {
      ...input, privacy: input.privacy ?? settings.defaultPrivacy, confidentialityLevel: input.confidentialityLevel ?? settings.defaultConfidentialityLevel,
    }, settings.griefPlan.map(stepOfSetting));
    return {
      lifeEvent: recorded.lifeEvent,
      griefPlan: recorded.lifeEvent.type === 'bereavement' ? { lifeEventId: recorded.lifeEvent.id, change: 'opened' as const, touchpoints: recorded.touchpoints } : null,
    };
  },
});

export const updateLifeEventTool = tools.write('update_life_event', {
  title: 'Update a life event',
  description: `Changes a life event's title, details, date, intent, community sharing or privacy; only the fields given change. A new date on a bereavement moves its grief-care touchpoints that are not yet due. ${RESTRICTED_RULE}`,
  keywords: ['edit life event', 'correct date', 'make private', 'amend life event', 'fix life event'],
  examples: ['the funeral date was wrong, it was the 3rd', 'make that life event confidential', "change the date of Bill's operation to 14 March", 'the baby was born on the 5th not the 6th, fix it', "keep Ruth's diagnosis private to the safeguarding lead", "don't share the Patels' wedding with the church after all", 'correct the date of death for Ken, it was the 2nd', "reword the life event about Sue's redundancy", "Grace's wedding was in June not July, amend it", "hide the news of Pat's illness from everyone but the safeguarding team", "update the details on Sam's new job entry", 'the Robinsons are happy for their baby news to be shared after all'],
  input: z.object({
    lifeEventId,
    title: z.string().trim().min(1).max(200).optional().describe('New short title'),
    details: z.string().trim().min(1).max(5000).nullable().optional().describe('New details; null clears them'),
    eventDate: orgDate('New date').optional(),
    intent: z.enum(LIFE_EVENT_INTENTS).optional().describe('celebrate or support'),
    shareWithCommunity: z.boolean().optional().describe('Whether the person agreed to it being shared with the congregation'),
    ...pastoralPrivacyInput,
  }),
  output: z.object({ lifeEvent: lifeEventSchema, changed: z.array(z.string()).describe('The fields that changed'), griefPlan: griefPlanOutput }).strict(),
  followUp: { kind: 'people.grief_plan' },
  timeline: (_input, output) => [eventTimeline(output.lifeEvent, 'life_event_updated', `Life event updated (${kindWords(output.lifeEvent)}): ${output.lifeEvent.title}`)],
  run: async (ctx, input) => {
    const { lifeEventId: id, ...changes } = input;
    const updated = await updateLifeEvent(ctx.db, ctx.org, canSeeRestricted(ctx.principal), id, changes, await griefPlanFor(ctx.db, ctx.org.id));
    const touchpoints = updated.planRescheduled ? await listGriefTouchpoints(ctx.db, ctx.org.id, true, { lifeEventId: id, status: 'all', limit: 100 }) : [];
    return {
      lifeEvent: updated.lifeEvent, changed: updated.changed,
      griefPlan: updated.planRescheduled ? { lifeEventId: id, change: 'rescheduled' as const, touchpoints } : null,
    };
  },
});

const listFilterInput = {
  type: z.enum(LIFE_EVENT_TYPES).optional().describe('Only this kind of event'),
  intent: z.enum(LIFE_EVENT_INTENTS).optional().describe('Only celebrate or only support events'),
  status: z.enum([...LIFE_EVENT_STATUSES, 'open', 'all']).default('all').describe('open: new, acknowledged or ongoing; default all'),
  from: orgDate('Events dated on or after this day').optional(),
  to: orgDate('Events dated on or before this day').optional(),
};

const listOutput = z.object({
  lifeEvents: z.array(lifeEventSchema),
  total: z.number().int().describe('How many match in all (the list is a page of them)'),
}).strict();

/** Both life-event lists: dates read in the organisation's format, the range checked, the caller's view applied. */
function listLifeEventsFor(ctx: ToolContext, input: Parameters<typeof listLifeEvents>[3]) {
  const from = parseFilterDate(input.from, 'from', ctx.org.dateFormat);
  const to = parseFilterDate(input.to, 'to', ctx.org.dateFormat);
  assertDateRange({ from, to });
  return listLifeEvents(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal), { ...input, from, to });
}

export const listPastoralLifeEventsTool = tools.read('list_pastoral_life_events', {
  title: 'A contact\'s life events',
  description: `One contact's life events, newest date first, with status and intent. ${RESTRICTED_RULE}`,
  keywords: ['life events', 'what happened', 'bereavements', 'milestones'],
  examples: ['what has been going on in Sarah\'s life', 'has this family had a bereavement', "any big changes in the Robinsons' lives recently?", 'what life events have we got for Harold', 'latest news recorded for Jean, newest first', 'has Karen had any illnesses or losses we know of', 'show the life events logged against Mr Ahmed', 'anything happening in the Taylor family we should know about', "Hilda's life events", "I'm visiting the Barkers next week, what's happened in their lives that we've noted", 'has Colin had any bereavements or illnesses recorded?'],
  input: z.object({ contactId, ...listFilterInput, limit }),
  output: listOutput,
  run: (ctx, input) => listLifeEventsFor(ctx, input),
});

export const listAllLifeEventsTool = tools.read('list_all_life_events', {
  title: 'All life events',
  description: `Life events across the congregation, newest date first, filtered by type, intent, status or date range, with the total matching. ${RESTRICTED_RULE}`,
  keywords: ['life events', 'bereavements this year', 'new babies', 'weddings', 'who is unwell'],
  examples: ['who has had a bereavement this year', 'list the births since Easter', 'open support life events', 'how many babies were born in the church family this year', 'all weddings in 2024', 'who in the congregation is poorly at the moment', 'list every death recorded since September', 'which parishioners have moved away this year', 'all new jobs and house moves from the last three months', 'all bereavements this year', "I'm writing the annual report and need every birth, wedding and death since January", 'which people across the church are going through illness right now?'],
  input: z.object({ ...listFilterInput, limit, offset: z.number().int().min(0).max(100000).default(0).describe('Skip this many (paging)') }),
  output: listOutput,
  run: (ctx, input) => listLifeEventsFor(ctx, input),
});

export const setLifeEventStatusTool = tools.write('set_life_event_status', {
  title: 'Set a life event\'s status',
  description: `Moves a life event between new, acknowledged (someone has been in touch), ongoing (care continues) and resolved. ${RESTRICTED_RULE}`,
  keywords: ['close life event', 'resolve', 'acknowledge'],
  examples: ['mark Jim\'s illness as resolved', 'we have been in touch about the new baby', "we've been in touch with Pam since her diagnosis, mark it acknowledged", "Ken's cancer care is ongoing", "close off the Greens' house move, nothing more needed", "reopen Steve's illness, he's back in hospital", "Jean's bereavement support is still continuing", 'mark the new job as dealt with', "Hilda's illness is resolved", 'I called Ruth after the twins arrived, so mark that life event as acknowledged', "can the Barkers' house move be closed off now?"],
  input: z.object({ lifeEventId, status: z.enum(LIFE_EVENT_STATUSES).describe('The new status') }),
  output: z.object({ lifeEvent: lifeEventSchema, previousStatus: z.enum(LIFE_EVENT_STATUSES) }).strict(),
  timeline: (_input, output) => [eventTimeline(output.lifeEvent, 'life_event_status_changed', `Life event ${output.lifeEvent.status} (${kindWords(output.lifeEvent)}): ${output.lifeEvent.title}`)],
  run: async (ctx, input) => setLifeEventStatus(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal), input.lifeEventId, input.status),
});

export const celebrateLifeEventTool = tools.write('celebrate_life_event', {
  title: 'Mark a life event celebrated',
  description: `Records that the church has celebrated a celebrate-intent life event (a card, a visit, a mention on Sunday); once only. Refused for support events. ${RESTRICTED_RULE}`,
  keywords: ['congratulate', 'celebrate', 'card sent'],
  examples: ['we sent the Browns a card for the new baby', 'mark the wedding as celebrated', 'we gave the Khans a gift for their wedding, tick it off', "Lily's baptism was mentioned in the notices on Sunday", 'record that we congratulated Jo on her new job', "card sent for the Millers' new arrival", 'the vicar visited the new parents with flowers, mark it done', "we celebrated Ruby's engagement at coffee time", 'card sent for the twins', "we prayed for Ruth and Ian's twins in the service and gave them a gift, mark it celebrated", "can you record that we celebrated Grace's graduation?"],
  input: z.object({ lifeEventId }),
  output: z.object({ lifeEvent: lifeEventSchema }).strict(),
  timeline: (_input, output) => [eventTimeline(output.lifeEvent, 'life_event_celebrated', `Celebrated (${kindWords(output.lifeEvent)}): ${output.lifeEvent.title}`)],
  run: async (ctx, input) => ({ lifeEvent: await celebrateLifeEvent(ctx.db, ctx.org.id, ctx.principal.userId, canSeeRestricted(ctx.principal), input.lifeEventId) }),
});

export const removeLifeEventTool = tools.write('remove_life_event', {
  title: 'Remove a life event',
  description: `Deletes a life event recorded in error, with its grief-care plan (which stops). The care timeline keeps a life_event_removed entry without the details, visible by the same rule as the event. ${RESTRICTED_RULE}`,
  keywords: ['delete life event', 'recorded in error'],
  examples: ['that bereavement was recorded against the wrong person, remove it', 'scrap the wedding entry, it was a duplicate', 'delete the illness I put on Brian by mistake', "Joan didn't actually move, take that off her record", 'bin that life event, it was never true', 'remove the bereavement and stop the grief calls, wrong family', 'erase the new baby entry I logged twice', "remove Hilda's hospital entry", 'I recorded a death on the wrong Colin, please delete that life event', 'how do I take off a life event that was entered by mistake?'],
  destructive: true,
  input: z.object({ lifeEventId }),
  output: z.object({
    removed: z.object({ id: z.uuid(), contactId: z.uuid(), type: z.enum(LIFE_EVENT_TYPES), title: z.string() }).strict(),
    restricted: z.boolean().describe('The removed event was private or confidential'),
    griefPlan: griefPlanOutput,
  }).strict(),
  followUp: { kind: 'people.grief_plan' },
  timeline: (_input, output) => [{
    contactId: output.removed.contactId, kind: 'life_event_removed', sourceKind: LIFE_EVENT_REMOVAL_SOURCE, sourceId: output.removed.id,
    summary: `A ${output.removed.type.replace(/_/g, ' ')} life event was removed`, restricted: output.restricted,
  }],
  run: async (ctx, input) => {
    const removed = await removeLifeEvent(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal), input.lifeEventId);
    return {
      removed: { id: removed.id, contactId: removed.contactId, type: removed.type, title: removed.title },
      restricted: isRestrictedLifeEvent(removed),
      griefPlan: removed.type === 'bereavement' ? { lifeEventId: removed.id, change: 'ended' as const, touchpoints: [] } : null,
    };
  },
});

export const generateLifeEventMessageTool = tools.write('generate_life_event_message', {
  title: 'Draft a message about a life event',
  description: `Drafts a congratulation or a message of support about a life event and puts it in the outreach approval queue as pending_review; nothing is sent until a person approves the exact text with people_approve_outreach. For a confidential event the draft names nothing about it. ${RESTRICTED_RULE}`,
  keywords: ['sympathy card', 'congratulations message', 'condolence', 'draft message', 'write to'],
  examples: ['draft a sympathy note to Margaret', 'write a congratulations text for the new parents', 'write a condolence message to the Taylor family', 'draft a note congratulating Ben on his new job', 'compose a get-well text for Stan after his operation', 'prepare a message of sympathy for Jean about her mum', 'write something kind to the Okafors about their new baby', 'draft a wedding congratulations email for Amy and Josh', 'draft a sympathy note for Colin', 'Ruth and Ian have had twins, write them a congratulations text I can check first', 'I need a get-well message for Hilda about her hospital stay'],
  input: z.object({
    lifeEventId,
    channel: z.enum(OUTREACH_CHANNELS).default('email').describe('email (default), sms or whatsapp'),
  }),
  output: z.object({ item: outreachItemSchema, lifeEventId: z.uuid() }).strict(),
  followUp: { kind: 'people.start_outreach' },
  run: async (ctx, input) => generateLifeEventMessage(ctx.db, ctx.org, ctx.principal.userId, canSeeRestricted(ctx.principal), input),
});

export const lifeEventsRadarTool = tools.read('get_life_events_radar', {
  title: 'Life events radar',
  description: `What needs attention: dated life events coming up, anniversaries of bereavements (and weddings, baptisms) ahead, grief-care touchpoints coming up or due, and support events nobody has been in touch about since they were recorded. Each item says why it is there. ${RESTRICTED_RULE}`,
  keywords: ['coming up', 'anniversaries', 'who needs care', 'unattended', 'grief anniversary', 'this week'],
  examples: ['whose bereavement anniversary is coming up', 'what life events need attention this week', 'any anniversaries of deaths coming up this month', 'whose wedding anniversary is next month', 'which families are nearing a year since their loss', 'illnesses nobody has followed up since we heard', "what's coming up in people's lives over the next fortnight", "life events we've let slip and need to act on", "what's on the radar", "I'm planning my pastoral week, what anniversaries and grief calls are coming up", 'are there any life events nobody has followed up?'],
  input: z.object({
    daysAhead: z.number().int().min(1).max(366).default(30).describe('How far ahead to look for upcoming events and anniversaries (default 30 days)'),
    unattendedAfterDays: z.number().int().min(0).max(365).default(3).describe('A support event counts as unattended once it is this many days old with no pastoral contact since (default 3)'),
    limit,
  }),
  output: z.object({ items: z.array(radarItemSchema), count: z.number().int() }).strict(),
  run: async (ctx, input) => {
    const items = await lifeEventsRadar(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal), { ...input, today: todayUtc() });
    return { items, count: items.length };
  },
});

export const contactLifeEventsTimelineTool = tools.read('get_contact_life_events_timeline', {
  title: 'A contact\'s life-events timeline',
  description: `One contact's life events in date order, oldest first, each with its grief-care touchpoints, so their story reads in sequence. ${RESTRICTED_RULE}`,
  keywords: ['life story', 'milestones', 'history', 'timeline'],
  examples: ['walk me through what this family has been through', 'show Peter\'s life events in order', "tell Edna's story from the start", 'chronological history of what the Harris family have been through', "everything that's happened to Mike, oldest first", "how has June's year unfolded since her husband died, with the follow-ups", "Bob's milestones in date order with the grief calls", 'give me the life history of the Clarkes in sequence', "Colin's life story", "I'm taking Hilda's funeral and want her life events in order from the beginning", 'what has happened to the Barkers over the years, in sequence?'],
  input: z.object({ contactId, limit }),
  output: z.object({
    contactId: z.uuid(),
    entries: z.array(z.object({ lifeEvent: lifeEventSchema, touchpoints: z.array(griefTouchpointSchema) }).strict()),
    total: z.number().int(),
  }).strict(),
  run: async (ctx, input) => {
    const canSee = canSeeRestricted(ctx.principal);
    const { lifeEvents, total } = await listLifeEvents(ctx.db, ctx.org.id, canSee, { contactId: input.contactId, limit: input.limit });
    const touchpoints = await listGriefTouchpoints(ctx.db, ctx.org.id, canSee, { contactId: input.contactId, status: 'all', limit: 200 });
    const entries = [...lifeEvents].reverse().map((lifeEvent) => ({ lifeEvent, touchpoints: touchpoints.filter((t) => t.lifeEventId === lifeEvent.id) }));
    return { contactId: input.contactId, entries, total };
  },
});

const exportFilterInput = {
  contactId: contactId.optional().describe('Only this contact\'s events'),
  type: listFilterInput.type,
  intent: listFilterInput.intent,
  status: listFilterInput.status,
  from: listFilterInput.from,
  to: listFilterInput.to,
};

export const exportLifeEventsReportTool = tools.read('export_life_events_report', {
  title: 'Export life events (CSV)',
  description: `Life events as a CSV file (returned as text in the result), filtered like people_list_all_life_events; up to 2000 rows, truncated says when more matched. ${RESTRICTED_RULE}`,
  keywords: ['csv', 'spreadsheet', 'report', 'export', 'download'],
  examples: ['give me a spreadsheet of this year\'s life events', 'export the bereavements to CSV', 'download all deaths since January as a spreadsheet', 'excel file of births and baptisms for the annual report', "CSV of this year's weddings for the parish magazine", 'I need the life events in a file to share with the PCC', 'export illnesses and hospital stays to a spreadsheet', "put last year's life events into a report I can open in Excel", 'life events CSV', 'the PCC wants numbers of baptisms, weddings and funerals this year as a spreadsheet', 'can I download the bereavements list to open in Excel?'],
  input: z.object(exportFilterInput),
  output: z.object({
    csv: z.string(), filename: z.string(), rowCount: z.number().int(), total: z.number().int(), truncated: z.boolean(),
  }).strict(),
  run: async (ctx, input) => {
    const from = parseFilterDate(input.from, 'from', ctx.org.dateFormat);
    const to = parseFilterDate(input.to, 'to', ctx.org.dateFormat);
    assertDateRange({ from, to });
    const report = await lifeEventsReportCsv(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal), { ...input, from, to });
    return { ...report, filename: `life-events-${todayUtc()}.csv` };
  },
});

export const exportLifeEventsCalendarTool = tools.read('export_life_events_calendar', {
  title: 'Export life events (iCalendar)',
  description: `Life events as an iCalendar (.ics) file, returned as text: all-day events on their dates, anniversaries of bereavements, weddings and baptisms repeating yearly, and optionally open grief-care touchpoints. Details are left out of the file. ${RESTRICTED_RULE}`,
  keywords: ['calendar', 'ics', 'ical', 'outlook', 'google calendar', 'anniversaries'],
  examples: ['put the bereavement anniversaries in my calendar', 'a calendar file of upcoming life events', 'add anniversaries of deaths to my Outlook', 'ics file so I remember when people lost loved ones', 'get the grief follow-up dates into Google Calendar', 'calendar download of baptism and wedding anniversaries', 'sync upcoming life events to my phone calendar', 'a diary file with yearly anniversaries of bereavements', 'anniversaries as a calendar', "I keep missing people's bereavement anniversaries, put them into my diary", "can I get an ics file of this year's life events?"],
  input: z.object({
    ...exportFilterInput,
    includeTouchpoints: z.boolean().default(true).describe('Also add open grief-care touchpoints (default true)'),
  }),
  output: z.object({ ics: z.string(), filename: z.string(), eventCount: z.number().int(), truncated: z.boolean() }).strict(),
  run: async (ctx, input) => {
    const { includeTouchpoints, ...filter } = input;
    const from = parseFilterDate(filter.from, 'from', ctx.org.dateFormat);
    const to = parseFilterDate(filter.to, 'to', ctx.org.dateFormat);
    assertDateRange({ from, to });
    const calendar = await lifeEventsCalendar(ctx.db, ctx.org, canSeeRestricted(ctx.principal), { filter: { ...filter, from, to }, includeTouchpoints });
    return { ...calendar, filename: 'life-events.ics' };
  },
});

export const listGriefTouchpointsTool = tools.read('list_grief_touchpoints', {
  title: 'Grief-care touchpoints',
  description: `Touchpoints of bereavements' grief-care plans (by default one week, one month, three and six months, first anniversary), soonest first. Default status open: pending and due. Touchpoints of a private or confidential bereavement appear only for callers holding people:safeguarding.`,
  keywords: ['grief care', 'bereavement follow up', 'touchpoints due', 'who to call'],
  examples: ['which bereaved people should we contact this week', 'grief care that is due', 'which widows are due a call', 'bereavement follow-ups due this month', 'who is coming up on six months since losing someone', 'list the grief care calls scheduled for the next fortnight', 'overdue bereavement visits', 'which grieving families should I ring today', 'grief calls due', 'the bereavement team meets Monday, which grief follow-ups fall due this week', 'who should I contact in the bereavement plan today?'],
  input: z.object({
    contactId: contactId.optional().describe('Only this contact\'s touchpoints'),
    lifeEventId: lifeEventId.optional().describe('Only this bereavement\'s touchpoints'),
    status: z.enum([...GRIEF_TOUCHPOINT_STATUSES, 'open', 'all']).default('open').describe('open (pending and due, the default), pending, due, completed, skipped or all'),
    dueBefore: orgDate('Only touchpoints due on or before this day').optional(),
    limit,
  }),
  output: z.object({ touchpoints: z.array(griefTouchpointSchema), count: z.number().int() }).strict(),
  run: async (ctx, input) => {
    const dueBefore = parseFilterDate(input.dueBefore, 'dueBefore', ctx.org.dateFormat);
    const touchpoints = await listGriefTouchpoints(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal), { ...input, dueBefore });
    return { touchpoints, count: touchpoints.length };
  },
});

export const completeGriefTouchpointTool = tools.write('complete_grief_touchpoint', {
  title: 'Complete a grief-care touchpoint',
  description: 'Records that a grief-care touchpoint happened (a call, a visit, a card), once only; it counts as pastoral contact for the welfare-due list and goes on the care timeline. Completing early is allowed. Touchpoints of a private or confidential bereavement behave as missing without people:safeguarding.',
  keywords: ['grief care done', 'called the widow', 'bereavement visit'],
  examples: ['I rang Margaret for the one-month touchpoint', 'mark the 3 month grief call as done', 'popped round to see Bill for his one-week bereavement visit', 'sent Jean a card at six months, tick it off', 'done the three-month call to the Evans family', 'tick off the first anniversary visit for Mary', 'I phoned Ted a month after the funeral, mark it complete', 'bereavement check-in with Sylvia is done', 'grief call to Colin done', "I took flowers to Hilda's husband at the one-month point, mark that touchpoint done", 'can you tick off the six-month bereavement check for Ruth?'],
  input: z.object({
    touchpointId: z.uuid().describe('The touchpoint\'s id'),
    note: z.string().trim().min(1).max(2000).optional().describe('How it went, briefly (kept with the touchpoint, not on the timeline)'),
  }),
  output: z.object({ touchpoint: griefTouchpointSchema, restricted: z.boolean().describe('The bereavement is private or confidential') }).strict(),
  timeline: (_input, output) => [{
    contactId: output.touchpoint.contactId, kind: 'grief_touchpoint_completed', sourceKind: GRIEF_TOUCHPOINT_SOURCE, sourceId: output.touchpoint.id,
    summary: `Grief care: touchpoint "${output.touchpoint.label}" completed`, occurredAt: output.touchpoint.completedAt ?? undefined,
    restricted: output.restricted,
  }],
  run: async (ctx, input) => completeGriefTouchpoint(ctx.db, ctx.org.id, ctx.principal.userId, canSeeRestricted(ctx.principal), input),
});

export const lifeEventTools = [
  recordLifeEventTool, updateLifeEventTool, listPastoralLifeEventsTool, listAllLifeEventsTool, setLifeEventStatusTool, celebrateLifeEventTool,
  removeLifeEventTool, generateLifeEventMessageTool, lifeEventsRadarTool, contactLifeEventsTimelineTool, exportLifeEventsReportTool,
  exportLifeEventsCalendarTool, listGriefTouchpointsTool, completeGriefTouchpointTool,
];
