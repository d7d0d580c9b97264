import { z } from 'zod';
import { toolsFor } from '../../../../kit';
import {
  getPastoralSettings, initializePastoralSettings, pastoralSettingsInput, pastoralSettingsSchema, setPastoralSettings,
} from '../settings';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });

export const getPastoralSettingsTool = tools.read('get_pastoral_settings', {
  title: 'Pastoral settings',
  description: 'The organisation\'s pastoral settings: welfare check interval, default visibility of new pastoral records, the grief touchpoint plan and quiet hours. Shows the defaults (initialized false) until they are stored.',
  keywords: ['pastoral settings', 'welfare interval', 'grief plan', 'quiet hours'],
  examples: ['how often should people get a welfare check', 'what is our grief care plan', 'what are our quiet hours for messages', 'how many days before someone counts as not contacted', 'who sees new pastoral notes by default', 'show me our pastoral care configuration', 'what steps are in our bereavement follow-up plan', "what's our welfare interval set to", 'our pastoral care setup', 'before I change anything I want to see our current welfare interval and grief plan', 'what time do our quiet hours start?'],
  input: z.object({}),
  output: z.object({ settings: pastoralSettingsSchema }).strict(),
  run: async (ctx) => ({ settings: await getPastoralSettings(ctx.db, ctx.org.id) }),
});

export const initializePastoralSettingsTool = tools.write('initialize_pastoral_settings', {
  title: 'Set up pastoral settings',
  description: 'Stores the pastoral settings for the first time: the defaults (180-day welfare interval, team visibility, a five-step grief plan, no quiet hours) with any values given. Calling it again changes nothing (created false); use people_set_pastoral_settings to change them.',
  keywords: ['set up pastoral care', 'initialise settings', 'first time setup', 'pastoral defaults'],
  examples: ['set up pastoral care for our church', 'start pastoral settings with the defaults', "we're new to Steward, get pastoral care going with a 120-day check", 'first-time setup of our pastoral preferences', 'save the standard pastoral settings for the first time', 'initialise pastoral care, quiet hours 9pm to 8am', 'switch on pastoral care settings using the usual defaults', 'get our pastoral defaults stored so the team can start', 'turn on pastoral care for the first time', 'create our pastoral settings, welfare checks every 90 days', "we've never configured pastoral care, set it up with a grief plan", 'initial setup of care settings, no messages after 9pm'],
  idempotent: true,
  input: z.object({
    welfareIntervalDays: pastoralSettingsInput.welfareIntervalDays.optional(),
    defaultPrivacy: pastoralSettingsInput.defaultPrivacy.optional(),
    defaultConfidentialityLevel: pastoralSettingsInput.defaultConfidentialityLevel.optional(),
    griefPlan: pastoralSettingsInput.griefPlan.optional(),
    quietHours: pastoralSettingsInput.quietHours.optional(),
  }),
  output: z.object({ settings: pastoralSettingsSchema, created: z.boolean().describe('false when settings were already stored (nothing changed)') }).strict(),
  run: async (ctx, input) => initializePastoralSettings(ctx.db, ctx.org.id, input),
});

export const setPastoralSettingsTool = tools.write('set_pastoral_settings', {
  title: 'Change pastoral settings',
  description: 'Changes the pastoral settings given and leaves the others as they are: welfare interval (days), default privacy and confidentiality of new pastoral records, grief plan (touchpoints with days after the loss) and quiet hours.',
  keywords: ['change welfare interval', 'edit grief plan', 'quiet hours', 'default privacy'],
  examples: ['check on people every 90 days instead', 'add a two-year touchpoint to the grief plan', 'no messages after 8pm or before 9am', 'make new pastoral records private by default', 'change the welfare check interval to four months', 'drop the six-month step from the bereavement plan', 'add a one-week call to the grief plan', 'new notes should default to team visibility', 'welfare check every 60 days', "we don't want messages going out on Sunday mornings, add that to quiet hours", 'can the grief plan include a call at two weeks?'],
  input: z.object({
    welfareIntervalDays: pastoralSettingsInput.welfareIntervalDays.optional(),
    defaultPrivacy: pastoralSettingsInput.defaultPrivacy.optional(),
    defaultConfidentialityLevel: pastoralSettingsInput.defaultConfidentialityLevel.optional(),
    griefPlan: pastoralSettingsInput.griefPlan.optional(),
    quietHours: pastoralSettingsInput.quietHours.optional(),
  }),
  output: z.object({ settings: pastoralSettingsSchema, changed: z.array(z.string()).describe('The settings this call changed') }).strict(),
  run: async (ctx, input) => setPastoralSettings(ctx.db, ctx.org.id, input),
});
