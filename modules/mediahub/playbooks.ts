import { definePlaybook, HUMAN_FIRST } from '../playbooks';

/** Media Hub's playbooks (served as MCP prompts). */
export const mediahubPlaybooks = [
  definePlaybook({
    name: 'publish-sundays-sermon',
    title: 'Publish Sunday\'s sermon',
    description: 'Takes Sunday\'s sermon from the service plan to the podcast: the recording uploaded and processed, an episode prefilled from the plan, song licences checked, published with a person\'s approval, the feed link shared.',
    scopes: ['mediahub:read', 'mediahub:write', 'runsheet:read'],
    tools: [
      'runsheet_list_plans', 'mediahub_begin_upload', 'mediahub_complete_upload', 'mediahub_get_item', 'mediahub_list_series', 'mediahub_create_series',
      'mediahub_create_episode', 'mediahub_update_episode', 'mediahub_publish_episode', 'mediahub_transcribe_episode', 'mediahub_get_feed_url',
    ],
    arguments: [{ name: 'service', description: 'The service, such as "Sunday 10:30 morning worship"', required: true }],
    steps: (args) => [
      `Publish the sermon from ${args.service}.`,
      '1. runsheet_list_plans: find that service\'s plan (its title, speaker and scripture come from it, and the songs sung).',
      '2. mediahub_begin_upload with the recording\'s file name and exact size; the person (or their app) PUTs the file to the uploadUrl with the uploadHeaders. Never put file bytes in a tool call. Then mediahub_complete_upload.',
      '3. mediahub_get_item until it is ready (processing finds its duration); if it failed, say why and ask for another export.',
      '4. mediahub_list_series: the series it belongs to, or mediahub_create_series for a new one.',
      '5. mediahub_create_episode with the series, the planId and the recording (audioItemId or videoItemId). Read back the title, speaker, scripture and songs.',
      '6. Every song needs a licence before publishing: public domain, a streaming licence (such as CCLI Streaming), a recording licence, or the church\'s own. Ask the person which applies and record it with mediahub_update_episode (songLicences). Never guess a licence.',
      '7. mediahub_publish_episode (now or at publishAt): an owner or admin approves it; do not say it is public until it is.',
      '8. Optionally mediahub_transcribe_episode, so the sermon can be found by what was said.',
      '9. mediahub_get_feed_url: the feed to give to podcast apps (once per channel).',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
