import { z } from 'zod';
import { defineTool } from '../../../../tool';
import {
  getPastoralSettings, initializePastoralSettings, pastoralSettingsInput, pastoralSettingsSchema, setPastoralSettings,
} from '../settings';

export const getPastoralSettingsTool = defineTool({
  name: 'people_get_pastoral_settings',
  module: 'people',
  title: 'Pastoral settings',
  description: 'The organisation\'s pastoral settings: welfare check interval, default visibility of new pastoral records, the grief touchpoint plan and quiet hours. Shows the defaults (initialized false) until they are stored.',
  keywords: ['pastoral settings', 'welfare interval', 'grief plan', 'quiet hours'],
  examples: ['how often should people get a welfare check', 'what is our grief care plan'],
  scope: 'people:read',
  effect: 'read',
  listed: false,
  input: z.object({}).strict(),
  output: z.object({ settings: pastoralSettingsSchema }).strict(),
  run: async (ctx) => ({ settings: await getPastoralSettings(ctx.db, ctx.org.id) }),
});

export const initializePastoralSettingsTool = defineTool({
  name: 'people_initialize_pastoral_settings',
  module: 'people',
  title: 'Set up pastoral settings',
  description: 'Stores the pastoral settings for the first time: the defaults (180-day welfare interval, team visibility, a five-step grief plan, no quiet hours) with any values given. Calling it again changes nothing (created false); use people_set_pastoral_settings to change them.',
  keywords: ['set up pastoral care', 'initialise settings'],
  examples: ['set up pastoral care for our church', 'start pastoral settings with the defaults'],
  scope: 'people:write',
  effect: 'write',
  idempotent: true,
  listed: false,
  input: z.object({
    welfareIntervalDays: pastoralSettingsInput.welfareIntervalDays.optional(),
    defaultPrivacy: pastoralSettingsInput.defaultPrivacy.optional(),
    defaultConfidentialityLevel: pastoralSettingsInput.defaultConfidentialityLevel.optional(),
    griefPlan: pastoralSettingsInput.griefPlan.optional(),
    quietHours: pastoralSettingsInput.quietHours.optional(),
  }).strict(),
  output: z.object({ settings: pastoralSettingsSchema, created: z.boolean().describe('false when settings were already stored (nothing changed)') }).strict(),
  run: async (ctx, input) => initializePastoralSettings(ctx.db, ctx.org.id, input),
});

export const setPastoralSettingsTool = defineTool({
  name: 'people_set_pastoral_settings',
  module: 'people',
  title: 'Change pastoral settings',
  description: 'Changes the pastoral settings given and leaves the others as they are: welfare interval (days), default privacy and confidentiality of new pastoral records, grief plan (touchpoints with days after the loss) and quiet hours.',
  keywords: ['change welfare interval', 'edit grief plan', 'quiet hours', 'default privacy'],
  examples: ['check on people every 90 days instead', 'add a two-year touchpoint to the grief plan'],
  scope: 'people:write',
  effect: 'write',
  listed: false,
  input: z.object({
    welfareIntervalDays: pastoralSettingsInput.welfareIntervalDays.optional(),
    defaultPrivacy: pastoralSettingsInput.defaultPrivacy.optional(),
    defaultConfidentialityLevel: pastoralSettingsInput.defaultConfidentialityLevel.optional(),
    griefPlan: pastoralSettingsInput.griefPlan.optional(),
    quietHours: pastoralSettingsInput.quietHours.optional(),
  }).strict(),
  output: z.object({ settings: pastoralSettingsSchema, changed: z.array(z.string()).describe('The settings this call changed') }).strict(),
  run: async (ctx, input) => setPastoralSettings(ctx.db, ctx.org.id, input),
});
