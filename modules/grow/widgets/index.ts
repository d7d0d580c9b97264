import path from 'node:path';
import { defineWidget } from '../../widget';

/** The grow module's in-chat widgets (MCP Apps): each script is a browser file beside this one. */
export const growWidgets = [
  defineWidget({
    id: 'grow-campaign-report',
    module: 'grow',
    title: 'Email campaign report',
    description: 'A campaign\'s report: recipients, handed to the outbox, opened and clicked as a funnel, bounces, complaints and unsubscribes, clicks per link and each A/B variant.',
    tools: ['grow_get_campaign_report'],
    script: path.join(__dirname, 'campaign-report.mts'),
  }),
  defineWidget({
    id: 'grow-form-submissions',
    module: 'grow',
    title: 'Form submissions',
    description: 'A form\'s submissions, newest first: each person\'s answers to the questions they were asked, and the contact matched or created.',
    tools: ['grow_list_submissions'],
    script: path.join(__dirname, 'form-submissions.mts'),
  }),
];
