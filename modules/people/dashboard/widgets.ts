import path from 'node:path';

/** The dashboard part's widgets; their scripts sit with the module's others in ../widgets/. */
import { defineWidget } from '../../widget';

export const contactProfileWidget = defineWidget({
  id: 'people-contact-profile',
  module: 'people',
  title: 'Contact profile',
  description: 'A contact\'s profile page at a glance: details, badges, household, family, teams, segments, open follow-ups and recent activity.',
  tools: ['people_get_contact_profile'],
  script: path.join(__dirname, '..', 'widgets', 'contact-profile.mts'),
});

export const crmChartWidget = defineWidget({
  id: 'people-crm-chart',
  module: 'people',
  title: 'CRM analytics chart',
  description: 'The CRM chart: a bar per day for each series (contacts added, first visits, care timeline entries, unsubscribes).',
  tools: ['people_get_crm_analytics_chart'],
  script: path.join(__dirname, '..', 'widgets', 'crm-chart.mts'),
});
