// Small group card: groups_get's group, roster, pending requests and meetings, as a leader reads them at a glance.
import { el, fields, startWidget, when } from '../../widget-view.mjs';

interface Meeting {
  id: string;
  title: string | null;
  localDate: string;
  localTime: string;
  rsvps: { yes: number; no: number; maybe: number };
  attendance: { recorded: boolean; present: number; absent: number; visitors: number };
}

interface GroupDetail {
  group: {
    id: string;
    name: string;
    type: { name: string } | null;
    description: string | null;
    schedule: { text: string | null };
    location: { kind: string; address: string | null; area: string | null; onlineUrl: string | null };
    confidential: boolean;
    archived: boolean;
    enrolment: { strategy: string; open: boolean; closedBy: string | null; memberLimit: number | null; members: number; placesLeft: number | null };
  };
  rosterHidden: boolean;
  roster: Array<{ membershipId: string; name: string; role: string; leftAt: string | null }>;
  pendingJoinRequests: Array<{ id: string; name: string; createdAt: string }>;
  recentMeetings: Meeting[];
  upcomingMeetings: Meeting[];
}

const STRATEGY: Record<string, string> = { open: 'Open to join', request_to_join: 'Ask to join', closed: 'Closed' };

function enrolmentLine(enrolment: GroupDetail['group']['enrolment']): string {
  const places = enrolment.memberLimit === null ? '' : ` · ${enrolment.placesLeft} of ${enrolment.memberLimit} places left`;
  const closed = enrolment.open ? '' : ` (closed${enrolment.closedBy && enrolment.closedBy !== 'strategy' ? `: ${enrolment.closedBy.replace(/_/g, ' ')}` : ''})`;
  return `${STRATEGY[enrolment.strategy] ?? enrolment.strategy}${closed}${places}`;
}

function meetingItem(meeting: Meeting, past: boolean): Node {
  const detail = past
    ? (meeting.attendance.recorded ? `${meeting.attendance.present} present, ${meeting.attendance.visitors} visitor(s)` : 'no register taken')
    : `${meeting.rsvps.yes} coming, ${meeting.rsvps.maybe} maybe`;
  return el('li', { 'data-id': meeting.id }, el('strong', {}, `${meeting.localDate} ${meeting.localTime}`), ` ${meeting.title ?? ''} · ${detail}`);
}

function card(detail: GroupDetail): Node {
  const { group } = detail;
  const place = group.location.kind === 'online' ? group.location.onlineUrl : [group.location.address, group.location.area].filter(Boolean).join(', ');
  const current = detail.roster.filter((member) => member.leftAt === null);
  return el('article', { class: 'card', 'data-id': group.id },
    el('h1', {}, group.name),
    el('p', { class: 'badges' },
      group.type ? el('span', { class: 'badge' }, group.type.name) : null,
      group.confidential ? el('span', { class: 'badge', 'data-field': 'confidential' }, 'Confidential') : null,
      group.archived ? el('span', { class: 'badge' }, 'Archived') : null),
    group.description ? el('p', {}, group.description) : null,
    fields([['Meets', group.schedule.text], ['Where', place], ['Enrolment', enrolmentLine(group.enrolment)]]),
    detail.rosterHidden
      ? el('p', { class: 'muted' }, 'The roster of this group is confidential.')
      : el('section', {},
        el('h2', {}, `Members (${current.length})`),
        el('ul', { class: 'roster' }, current.map((member) => el('li', { 'data-id': member.membershipId }, member.role === 'leader' ? el('strong', {}, `${member.name} (leader)`) : member.name))),
        detail.pendingJoinRequests.length > 0
          ? el('section', {}, el('h2', {}, 'Waiting to join'), el('ul', {}, detail.pendingJoinRequests.map((request) => el('li', { 'data-id': request.id }, `${request.name}, asked ${when(request.createdAt)}`))))
          : null),
    detail.upcomingMeetings.length > 0 ? el('section', {}, el('h2', {}, 'Coming up'), el('ul', {}, detail.upcomingMeetings.map((meeting) => meetingItem(meeting, false)))) : null,
    detail.recentMeetings.length > 0 ? el('section', {}, el('h2', {}, 'Recent meetings'), el('ul', {}, detail.recentMeetings.map((meeting) => meetingItem(meeting, true)))) : null);
}

startWidget('steward-group-card', card);
