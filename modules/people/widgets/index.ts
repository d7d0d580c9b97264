import path from 'node:path';
import { defineWidget } from '../../widget';

/** The people module's in-chat widgets (MCP Apps): each script is a browser file beside this one. */
export const peopleWidgets = [
  defineWidget({
    id: 'people-prayer-analytics',
    module: 'people',
    title: 'Prayer analytics',
    description: 'Prayer requests added and answered month by month, as a bar chart.',
    tools: ['people_get_prayer_analytics'],
    script: path.join(__dirname, 'care-analytics.mts'),
  }),
  defineWidget({
    id: 'people-visit-analytics',
    module: 'people',
    title: 'Visit analytics',
    description: 'Pastoral visits month by month and by visitor, as bar charts.',
    tools: ['people_get_visit_analytics'],
    script: path.join(__dirname, 'care-analytics.mts'),
  }),
  defineWidget({
    id: 'people-contact-card',
    module: 'people',
    title: 'Contact card',
    description: 'One contact\'s record as a card: name, statuses, contact details, church dates, custom fields and tags.',
    tools: ['people_get_contact'],
    script: path.join(__dirname, 'contact-card.mts'),
  }),
  defineWidget({
    id: 'people-care-timeline',
    module: 'people',
    title: 'Care timeline',
    description: 'A contact\'s care timeline, newest first.',
    tools: ['people_list_care_timeline'],
    script: path.join(__dirname, 'care-timeline.mts'),
  }),
  defineWidget({
    id: 'people-outreach-queue',
    module: 'people',
    title: 'Outreach approval queue',
    description: 'Queued pastoral messages with their exact content, to approve and send or decline.',
    tools: ['people_list_pending_outreach'],
    script: path.join(__dirname, 'outreach-queue.mts'),
  }),
];
