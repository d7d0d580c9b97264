import type { ModulePart } from '../../module';
import { openFirstTimerCards } from './first-timers';
import { guestsPipeline } from './migrations/2026.11.24T16.00.00.guests-pipeline';
import { guestsVolunteerMerge } from './migrations/2026.11.25T02.01.00.guests-volunteer-merge';
import { pipelineModels } from './models';
import { analyticsTools } from './tools/analytics';
import { pipelineTools } from './tools/pipeline';
import { volunteerTools } from './tools/volunteers';
import { welcomeTools } from './tools/welcome';

/**
 * The guest pipeline part of the guests module (joined in ../index.ts): stages and one card per guest
 * with its journey and follow-ups, welcome cards sent and filled in, volunteer schedules, guest
 * analytics, and the Monday run that opens cards for Sunday's first-time guests.
 */
export const pipelinePart: ModulePart = {
  name: 'pipeline',
  tools: [...pipelineTools, ...welcomeTools, ...volunteerTools, ...analyticsTools],
  models: [...pipelineModels],
  migrations: [guestsPipeline, guestsVolunteerMerge],
  contactRefs: [
    // One card per guest: when both merged contacts have one, the kept contact's card stays and the
    // duplicate's is left behind with the soft-deleted duplicate (a trigger, see the migration).
    { table: 'guests_pipeline_cards', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'guests_welcome_cards', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'guests_card_submissions', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    // Both merged contacts on one team for one service: the kept contact's assignment absorbs the other (a trigger, see the migrations).
    { table: 'guests_volunteer_assignments', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
  ],
  jobs: [{
    name: 'guests.first_timer_cards',
    description: 'Opens a guest pipeline card for each adult checked in for the first time on the last Sunday (once per guest)',
    everyMs: 3_600_000,
    run: openFirstTimerCards,
  }],
};
