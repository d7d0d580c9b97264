import { definePlaybook, HUMAN_FIRST } from '../playbooks';

/** Live's playbooks (served as MCP prompts). */
export const livePlaybooks = [
  definePlaybook({
    name: 'set-up-the-christmas-eve-stream',
    title: 'Set up the Christmas Eve stream with a poll',
    description: 'Schedules a service\'s live stream (Christmas Eve, or any), prepares a poll for viewers, goes live when the encoder is sending, closes the poll, ends the stream and records online attendance with the method the church counts by.',
    scopes: ['live:read', 'live:write', 'schedule:read'],
    tools: [
      'schedule_list_upcoming_instances', 'live_schedule_stream', 'live_get_stream_status', 'live_start_stream', 'live_create_poll', 'live_get_poll_results',
      'live_close_poll', 'live_list_chat', 'live_moderate_chat', 'live_list_prayer_requests', 'live_end_stream', 'live_get_viewer_stats', 'live_record_online_attendance',
    ],
    arguments: [
      { name: 'service', description: 'The service, such as "the Christmas Eve carol service at 6pm"', required: true },
      { name: 'poll', description: 'The poll question and options, such as "Which carol next? O Holy Night / Silent Night / Hark the Herald"', required: false },
    ],
    steps: (args) => [
      `Stream ${args.service}${args.poll ? ` with the poll "${args.poll}"` : ' with a poll'}.`,
      '1. schedule_list_upcoming_instances: find the service instance (date and time); confirm it with the person.',
      '2. live_schedule_stream with its instanceId (title and times come from it); set chatBeforeMinutes so people can greet each other before it starts, and a graceMinutes that covers a service running long. Give the person the watchPath (the viewer page).',
      '3. On the night, live_get_stream_status until ingestActive is true (the encoder is sending); then live_start_stream. Starting early or without a scheduled stream waits for a person to approve it: say so.',
      '4. live_create_poll on the stream with the question and 2 to 10 options (anonymous unless they ask otherwise); live_get_poll_results during the service, live_close_poll when the moment has passed.',
      '5. Keep an eye on live_list_chat; live_moderate_chat hides a message or blocks a viewer who posts abuse or spam. Prayer requests from viewers go to the pastoral team (live_list_prayer_requests, which needs the pastoral scopes), never into the chat.',
      '6. live_end_stream when the service ends (it completes by itself at its end plus the grace period if nobody does).',
      '7. live_get_viewer_stats: report the raw figures with how each is counted; ask which the church reports (unique viewers is usual) and whether it uses a household multiplier, then live_record_online_attendance.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
