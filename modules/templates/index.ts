import { defineModule } from '../module';
import { createTemplatesReviewActivities } from './activities/whatsapp-review';
import { templatesTables } from './migrations/2026.11.24T12.00.00.templates';
import { templatesModels } from './models/templates';
import { templatesTools } from './tools';

/**
 * Email, SMS and WhatsApp templates with immutable, reviewed versions: one active version per
 * template, `{{variable}}` placeholders that never reach a recipient unfilled, exact SMS segment
 * counts, and WhatsApp's review mirrored by a workflow (status webhook, polling as a fallback).
 * The channels module renders its sends through `services.ts`.
 */
export default defineModule({
  name: 'templates',
  title: 'Templates',
  description: 'Email, SMS and WhatsApp templates with versions: preview, validate, activate, WhatsApp review.',
  tools: templatesTools,
  models: [...templatesModels],
  migrations: [templatesTables],
  scopes: ['templates:read', 'templates:write'],
  uses: ['platform', 'people'],
  routes: [],
  workflows: require.resolve('./workflows'),
  activities: [createTemplatesReviewActivities],
});
