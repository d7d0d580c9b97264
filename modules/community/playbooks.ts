import { definePlaybook, HUMAN_FIRST } from '../playbooks';

/** The community module's playbooks (served as MCP prompts). */
export const communityPlaybooks = [
  definePlaybook({
    name: 'prepare-sunday-prayer-wall',
    title: "Prepare this Sunday's prayer wall and celebrations",
    description: 'Works through the moderation queue, then reads out what the congregation will see on the prayer wall and the celebrations board, and who needs following up this week.',
    scopes: ['community:read', 'community:write'],
    tools: [
      'community_list_moderation_queue', 'community_get_post', 'community_approve_post', 'community_reject_post', 'community_list_prayer_wall',
      'community_list_celebrations', 'community_get_followup_radar', 'community_get_summary',
    ],
    arguments: [{ name: 'sunday', description: 'Which Sunday, such as "29 November"', required: true }],
    steps: (args) => [
      `Prepare the prayer wall and celebrations for Sunday ${args.sunday}.`,
      '1. community_get_summary: how many posts are waiting, on the wall and on the board, and whether the wall and celebrations are switched on.',
      '2. community_list_moderation_queue: each pending post with exactly the words and name the congregation would see. Show each one to the person and ask them to decide; never approve on your own judgement.',
      '3. For each decision: community_approve_post, or community_reject_post with the reason the person gives (too many medical details, a third party named, no clear consent). A conflict answer means someone decided it already, or the request was made private since: community_get_post shows its status; leave it.',
      '4. community_list_prayer_wall and community_list_celebrations: read back what will be shown on Sunday, answered prayers first as praise.',
      '5. community_get_followup_radar: who the pastoral team should contact this week, with why (guests due a follow-up and regulars who stopped coming included); mention any source it says is unavailable.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
