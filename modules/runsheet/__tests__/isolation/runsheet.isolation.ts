import { DateTime } from 'luxon';
import sharp from 'sharp';
import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Runsheet: B's key with A's service types, plans, items, songs, teams, positions, people on plans, templates and autofill runs. */
export const isolation: IsolationPart = {
  tables: [],
  secrets: ['Apart rota plan', 'Apart sermon slot', 'Apart hymn', 'Apart sound team', 'Apart template'],
  async seed({ harness, a }) {
    const call = (tool: string, args: Record<string, unknown>) => harness.call(a.apiKey, tool, args);
    const volunteer = (await call('people_create_contact', { firstName: 'Rota', lastName: 'Apart' })).contact.id as string;
    const series = (await call('schedule_create_series', {
      title: 'Apart runsheet series', rrule: 'FREQ=WEEKLY', startDate: DateTime.now().plus({ days: 3 }).toISODate(), startTime: '10:00', durationMinutes: 60, timeZone: 'Europe/London',
    })).series.id as string;
    const serviceType = (await call('runsheet_create_service_type', { name: 'Apart service', scheduleSeriesId: series })).serviceType.id as string;
    const team = (await call('runsheet_create_team', { name: 'Apart sound team' })).teamId as string;
    const position = (await call('runsheet_add_position', { teamId: team, name: 'Desk' })).positionId as string;
    await call('runsheet_add_team_member', { positionId: position, contactId: volunteer });
    const date = DateTime.now().plus({ days: 40 }).toISODate();
    const plan = (await call('runsheet_create_plan', { serviceTypeId: serviceType, date, title: 'Apart rota plan', times: [{ kind: 'service', startTime: '10:00', durationMinutes: 60 }] })).plan.id as string;
    const song = (await call('runsheet_create_song', { title: 'Apart hymn', publicDomain: true })).songId as string;
    const arrangement = (await call('runsheet_add_arrangement', { songId: song, name: 'Organ', key: 'F' })).arrangementId as string;
    const header = (await call('runsheet_add_item', { planId: plan, kind: 'header', title: 'Apart header' })).itemId as string;
    const item = (await call('runsheet_add_item', { planId: plan, kind: 'song', songId: song, arrangementId: arrangement, parentId: header })).itemId as string;
    await call('runsheet_add_item', { planId: plan, kind: 'item', title: 'Apart sermon slot', lengthSeconds: 600 });
    await call('runsheet_set_needed_positions', { planId: plan, positions: [{ positionId: position, quantity: 2 }] });
    const planPerson = (await call('runsheet_schedule_person', { planId: plan, positionId: position, contactId: volunteer })).planPersonId as string;
    const template = (await call('runsheet_create_template', { name: 'Apart template', fromPlanId: plan })).templateId as string;
    const autofillRun = (await call('runsheet_autofill_positions', { planId: plan })).runId as string;
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: { r: 1, g: 2, b: 3 } } }).png().toBuffer();
    const chart = (await call('platform_upload_media_library_file', { base64Content: png.toString('base64'), fileName: 'apart-chart.png', isPublic: false })).file.id as string;
    const songFile = (await call('runsheet_attach_song_file', { songId: song, arrangementId: arrangement, mediaId: chart, kind: 'chord_chart' })).file.id as string;
    return {
      runsheetVolunteer: volunteer, runsheetServiceType: serviceType, runsheetTeam: team, runsheetPosition: position, runsheetPlan: plan, runsheetSong: song,
      runsheetArrangement: arrangement, runsheetHeader: header, runsheetItem: item, runsheetPlanPerson: planPerson, runsheetTemplate: template, runsheetAutofillRun: autofillRun,
      runsheetDate: date, runsheetSeries: series, runsheetChart: chart, runsheetSongFile: songFile,
    };
  },
  entries: {
    runsheet_create_service_type: [{ args: (i) => ({ name: 'B service', scheduleSeriesId: i.runsheetSeries }) }],
    runsheet_list_plans: [{ args: (i) => ({ serviceTypeId: i.runsheetServiceType }) }],
    runsheet_find_previous_plan: [
      { args: (i) => ({ planId: i.runsheetPlan }) },
      { label: 'service type', args: (i) => ({ serviceTypeId: i.runsheetServiceType }) },
    ],
    runsheet_get_plan: [{ args: (i) => ({ planId: i.runsheetPlan }) }],
    runsheet_create_plan: [{ args: (i) => ({ serviceTypeId: i.runsheetServiceType, date: i.runsheetDate, times: [{ kind: 'service', startTime: '09:00', durationMinutes: 30 }] }) }],
    runsheet_copy_plan: [
      { args: (i) => ({ sourcePlanId: i.runsheetPlan, date: i.runsheetDate }) },
      { label: 'template', args: (i) => ({ templateId: i.runsheetTemplate, date: i.runsheetDate, times: [{ kind: 'service', startTime: '09:00', durationMinutes: 30 }] }) },
    ],
    runsheet_add_item: [{ args: (i) => ({ planId: i.runsheetPlan, kind: 'item', title: 'B item' }) }],
    runsheet_update_item: [{ args: (i) => ({ planId: i.runsheetPlan, itemId: i.runsheetItem, title: 'B title' }) }],
    runsheet_remove_item: [{ args: (i) => ({ planId: i.runsheetPlan, itemId: i.runsheetItem }) }],
    runsheet_reorder_items: [{ args: (i) => ({ planId: i.runsheetPlan, itemIds: [i.runsheetHeader] }) }],
    runsheet_lock_plan: [{ args: (i) => ({ planId: i.runsheetPlan }) }],
    runsheet_get_rota: [{ args: (i) => ({ serviceTypeId: i.runsheetServiceType }) }],
    runsheet_get_live_view: [{ args: (i) => ({ planId: i.runsheetPlan }) }],
    runsheet_create_template: [{ args: (i) => ({ name: 'B template', fromPlanId: i.runsheetPlan }) }],
    runsheet_list_templates: [{ args: (i) => ({ serviceTypeId: i.runsheetServiceType }) }],
    runsheet_apply_template: [{ args: (i) => ({ planId: i.runsheetPlan, templateId: i.runsheetTemplate }) }],
    runsheet_add_arrangement: [{ args: (i) => ({ songId: i.runsheetSong, name: 'B arrangement' }) }],
    runsheet_attach_song_file: [
      { args: (i) => ({ songId: i.runsheetSong, mediaId: i.runsheetChart, kind: 'other' }) },
      { label: 'arrangement', args: (i) => ({ songId: i.runsheetSong, arrangementId: i.runsheetArrangement, mediaId: i.runsheetChart, kind: 'other' }) },
    ],
    runsheet_list_song_files: [{ args: (i) => ({ songId: i.runsheetSong }) }],
    runsheet_remove_song_file: [{ args: (i) => ({ fileId: i.runsheetSongFile }) }],
    runsheet_set_song: [{ args: (i) => ({ planId: i.runsheetPlan, itemId: i.runsheetItem, songId: i.runsheetSong }) }],
    runsheet_list_teams: [{ args: (i) => ({ serviceTypeId: i.runsheetServiceType }) }],
    runsheet_create_team: [{ args: (i) => ({ name: 'B team', serviceTypeId: i.runsheetServiceType }) }],
    runsheet_update_team: [{ args: (i) => ({ teamId: i.runsheetTeam, autoReplace: true }) }],
    runsheet_add_position: [{ args: (i) => ({ teamId: i.runsheetTeam, name: 'B position' }) }],
    runsheet_add_team_member: [{ args: (i) => ({ positionId: i.runsheetPosition, contactId: i.runsheetVolunteer }) }],
    runsheet_set_needed_positions: [{ args: (i) => ({ planId: i.runsheetPlan, positions: [{ positionId: i.runsheetPosition, quantity: 5 }] }) }],
    runsheet_schedule_person: [{ args: (i) => ({ planId: i.runsheetPlan, positionId: i.runsheetPosition, contactId: i.runsheetVolunteer }) }],
    runsheet_unschedule_person: [{ args: (i) => ({ planPersonId: i.runsheetPlanPerson }) }],
    runsheet_respond_to_request: [{ args: (i) => ({ planPersonId: i.runsheetPlanPerson, response: 'decline', reason: 'B says no' }) }],
    runsheet_record_blockout: [{ args: (i) => ({ contactId: i.runsheetVolunteer, startsOn: i.runsheetDate }) }],
    runsheet_get_blockout_link: [{ args: (i) => ({ contactId: i.runsheetVolunteer }) }],
    runsheet_set_preferences: [{ args: (i) => ({ contactId: i.runsheetVolunteer, maxPerMonth: 1 }) }],
    runsheet_autofill_positions: [{ args: (i) => ({ planId: i.runsheetPlan }) }],
    runsheet_undo_autofill: [{ args: (i) => ({ runId: i.runsheetAutofillRun }) }],
    runsheet_send_requests: [{ args: (i) => ({ planId: i.runsheetPlan }) }],
    runsheet_check_readiness: [{ args: (i) => ({ planId: i.runsheetPlan }) }],
  },
};
