import { DateTime } from 'luxon';
import { queryRows, type Queryable } from '../../db/pool';
import { listProposals } from '../../kernel/proposals';
import { listCheckins, listLocations } from '../guests/api';
import { getInstance, listInstances } from '../schedule/api';
import { nameOr, namesOf, planState, requirePlan, requirePosition } from './common';
import { readinessContributors, type ReadinessFinding, type ReadinessPlan } from './extension-points';
import { LARGE_SEND, pendingRequests } from './messages';
import { conflictsOf } from './ranking';
import { gatherFacts } from './scheduling';

const SEVERITY_ORDER = { blocker: 0, warning: 1, info: 2 } as const;

/** The runsheet tools whose pending approvals can concern one plan (they name it as planId). */
const PLAN_TOOLS = ['runsheet_send_requests', 'runsheet_apply_template'];

/** How many earlier services of the same series the children-per-room estimate averages. */
const HISTORY_SERVICES = 4;

/**
 * Sunday readiness for one upcoming plan, across modules: every needed position filled by someone
 * cleared, not blocked out and not double-booked; everyone asked; songs licensed; approvals waiting
 * that concern it; expected children per room (from the series' recent check-ins) against each room's
 * capacity and ratio; rooms (spaces, through the runsheetReadiness extension point). Answers a ranked
 * fix list whose actions are tool calls, and says plainly which checks could not be made.
 */
export async function checkReadiness(db: Queryable, orgId: string, planId: string) {
  const plan = await requirePlan(db, orgId, planId);
  const findings: ReadinessFinding[] = [];
  const notChecked: string[] = [];
  const times = await queryRows<{ kind: 'service' | 'rehearsal' | 'other'; starts_at: Date; ends_at: Date }>(db,
    'SELECT kind, starts_at, ends_at FROM runsheet_plan_times WHERE org_id = $1 AND plan_id = $2 ORDER BY starts_at', [orgId, planId]);

  // People: open places, and everyone scheduled checked against every rule as things stand now.
  const needs = await queryRows<{ position_id: string; position_name: string; plan_time_id: string | null; time_starts_at: Date | null; quantity: number; filled: number }>(db,
    `SELECT n.position_id, p.name AS position_name, n.plan_time_id, pt.starts_at AS time_starts_at, n.quantity,
      (SELECT count(*)::int FROM runsheet_plan_people pp WHERE pp.org_id = n.org_id AND pp.plan_id = n.plan_id AND pp.position_id = n.position_id
        AND pp.plan_time_id IS NOT DISTINCT FROM n.plan_time_id AND pp.status <> 'declined') AS filled
    FROM runsheet_needed_positions n JOIN runsheet_positions p ON p.id = n.position_id AND p.org_id = n.org_id
    LEFT JOIN runsheet_plan_times pt ON pt.id = n.plan_time_id AND pt.org_id = n.org_id
    WHERE n.org_id = $1 AND n.plan_id = $2 ORDER BY lower(p.name), pt.starts_at NULLS FIRST`, [orgId, planId]);
  for (const need of needs.filter((row) => row.filled < row.quantity)) {
    const searching = await queryRows(db, `SELECT 1 FROM runsheet_substitutions WHERE org_id = $1 AND plan_id = $2 AND position_id = $3
      AND plan_time_id IS NOT DISTINCT FROM $4::uuid AND status = 'searching'`, [orgId, planId, need.position_id, need.plan_time_id]);
    const at = need.time_starts_at ? ` at ${DateTime.fromJSDate(need.time_starts_at, { zone: plan.time_zone }).toFormat('HH:mm')}` : '';
    findings.push({
      severity: 'blocker', area: 'people', title: `${need.position_name}${at}: ${need.quantity - need.filled} of ${need.quantity} place(s) open`,
      detail: searching.length > 0 ? 'A substitute search is under way for it (runsheet_get_plan shows its offers).' : 'Nobody is scheduled for these places.',
      fix: { tool: 'runsheet_autofill_positions', args: { planId, positionIds: [need.position_id] } },
    });
  }
  const people = await queryRows<{ id: string; contact_id: string; position_id: string; plan_time_id: string | null; position_name: string; status: string }>(db, `SELECT pp.id, pp.contact_id, pp.position_id, pp.plan_time_id, p.name AS position_name, pp.status
    FROM runsheet_plan_people pp JOIN runsheet_positions p ON p.id = pp.position_id AND p.org_id = pp.org_id
    WHERE pp.org_id = $1 AND pp.plan_id = $2 AND pp.status <> 'declined' ORDER BY lower(p.name), pp.id`, [orgId, planId]);
  const names = await namesOf(db, orgId, people.map((row) => row.contact_id));
  for (const row of people) {
    const position = await requirePosition(db, orgId, row.position_id);
    const facts = (await gatherFacts(db, orgId, plan, position, [row.contact_id], row.plan_time_id)).get(row.contact_id)!;
    // Their own place does not count against them: gatherFacts leaves out this plan and position.
    for (const conflict of conflictsOf(facts)) {
      const hard = conflict.code === 'missing_clearance' || conflict.code === 'already_serving' || conflict.code === 'blockout';
      findings.push({
        severity: hard ? 'blocker' : 'warning', area: 'people',
        title: `${nameOr(names, row.contact_id)} (${row.position_name}): ${conflict.code === 'already_serving' ? 'double-booked' : conflict.code.replace(/_/g, ' ')}`,
        detail: conflict.message,
        fix: { tool: 'runsheet_unschedule_person', args: { planPersonId: row.id } },
      });
    }
  }
  const unasked = await pendingRequests(db, orgId, planId);
  if (unasked.length > 0) {
    findings.push({
      severity: 'warning', area: 'people', title: `${unasked.length} scheduled person(s) not asked yet`, detail: 'They have not been sent a request for this plan.',
      fix: { tool: 'runsheet_send_requests', args: { planId }, approvalGated: unasked.length > LARGE_SEND },
    });
  }
  const unconfirmed = people.filter((row) => row.status === 'unconfirmed').length;
  if (unconfirmed > 0) findings.push({ severity: 'info', area: 'people', title: `${unconfirmed} person(s) have not answered yet`, detail: 'Their places count as filled until they decline.', fix: null });

  // Songs: every song item names a song from the library that has a CCLI number or is in the public domain.
  const songs = await queryRows<{ item_id: string; title: string; song_id: string | null; ccli_number: string | null; public_domain: boolean | null }>(db, `SELECT i.id AS item_id, i.title, i.song_id, s.ccli_number, s.public_domain
    FROM runsheet_items i LEFT JOIN runsheet_songs s ON s.id = i.song_id AND s.org_id = i.org_id WHERE i.org_id = $1 AND i.plan_id = $2 AND i.kind = 'song' ORDER BY i.sort_order`, [orgId, planId]);
  for (const song of songs) {
    if (!song.song_id) {
      findings.push({ severity: 'warning', area: 'songs', title: `"${song.title}" is not linked to a song in the library`, detail: 'Its licence cannot be checked or reported to CCLI.', fix: { tool: 'runsheet_set_song', args: { planId, itemId: song.item_id } } });
    } else if (!song.ccli_number && !song.public_domain) {
      findings.push({ severity: 'warning', area: 'songs', title: `"${song.title}" has no CCLI number`, detail: 'Songs sung in services need a CCLI number (or to be marked public domain) for the licence return.', fix: { tool: 'runsheet_list_songs', args: { search: song.title } } });
    }
  }

  // Approvals waiting that concern this plan.
  const pending = (await listProposals(db, orgId, { status: 'pending', limit: 100, actionTools: PLAN_TOOLS })).filter((proposal) => proposal.action.arguments.planId === planId);
  for (const proposal of pending) {
    findings.push({ severity: 'warning', area: 'approvals', title: `Waiting for approval: ${proposal.summary}`, detail: `Proposed ${proposal.createdAt}, expires ${proposal.expiresAt}.`, fix: { tool: 'platform_approve_proposal', args: { proposalId: proposal.id } } });
  }

  // Children per room, from the same series' recent services.
  const children = await childrenPerRoom(db, orgId, plan.instance_id, plan.plan_date);
  if (children.note) notChecked.push(children.note);
  for (const room of children.rooms) {
    if (room.capacity !== null && room.expectedChildren > room.capacity) {
      findings.push({ severity: 'warning', area: 'children', title: `${room.name}: about ${room.expectedChildren} children expected, room holds ${room.capacity}`, detail: `Average of the last ${children.services} service(s) of this series.`, fix: { tool: 'guests_update_location', args: { locationId: room.locationId } } });
    }
    if (room.adultsNeeded !== null) {
      findings.push({ severity: 'info', area: 'children', title: `${room.name}: ${room.adultsNeeded} adult(s) needed for about ${room.expectedChildren} children`, detail: `At ${room.childrenPerAdult} children per adult.`, fix: null });
    }
  }

  // Rooms and setup time: spaces, once a module fills the extension point.
  const readinessPlan: ReadinessPlan = {
    planId, instanceId: plan.instance_id, date: plan.plan_date, timeZone: plan.time_zone,
    times: times.map((time) => ({ kind: time.kind, startsAt: time.starts_at.toISOString(), endsAt: time.ends_at.toISOString() })),
  };
  const contributors = readinessContributors();
  if (!contributors.some((contributor) => contributor.area === 'rooms')) notChecked.push('Rooms and setup times were not checked: the spaces module is not installed.');
  for (const contributor of contributors) findings.push(...(await contributor.check(db, orgId, readinessPlan)));

  findings.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  const state = planState(plan);
  return {
    planId, date: plan.plan_date, state,
    ready: findings.every((finding) => finding.severity === 'info'),
    blockers: findings.filter((finding) => finding.severity === 'blocker').length,
    warnings: findings.filter((finding) => finding.severity === 'warning').length,
    fixes: findings.map((finding, index) => ({ rank: index + 1, ...finding })),
    children: children.rooms,
    notChecked,
  };
}

async function childrenPerRoom(db: Queryable, orgId: string, instanceId: string | null, date: string) {
  const none = (note: string) => ({ rooms: [] as Array<{ locationId: string; name: string; expectedChildren: number; capacity: number | null; childrenPerAdult: number | null; adultsNeeded: number | null }>, services: 0, note });
  if (!instanceId) return none('Children per room were not estimated: the plan is not linked to a schedule instance, so it has no series history.');
  const instance = await getInstance(db, orgId, instanceId);
  const from = DateTime.fromISO(date).minus({ weeks: 12 }).toISODate()!;
  const to = DateTime.fromISO(date).minus({ days: 1 }).toISODate()!;
  const earlier = (await listInstances(db, orgId, { from, to, seriesId: instance.seriesId })).slice(-HISTORY_SERVICES);
  if (earlier.length === 0) return none('Children per room were not estimated: the series has no earlier services to learn from.');
  const counts = new Map<string, number>();
  for (const service of earlier) {
    for (const checkin of await listCheckins(db, orgId, { from: service.localDate, to: service.localDate, instanceId: service.id })) {
      if (checkin.personKind === 'child') counts.set(checkin.locationId, (counts.get(checkin.locationId) ?? 0) + 1);
    }
  }
  const rooms = (await listLocations(db, orgId)).filter((location) => counts.has(location.id)).map((location) => {
    const expectedChildren = Math.round((counts.get(location.id) ?? 0) / earlier.length);
    const ratio = location.childrenPerAdult ?? null;
    return {
      locationId: location.id, name: location.name, expectedChildren, capacity: location.capacity ?? null, childrenPerAdult: ratio,
      adultsNeeded: ratio ? Math.max(1, Math.ceil(expectedChildren / ratio)) : null,
    };
  });
  return { rooms, services: earlier.length, note: null };
}
