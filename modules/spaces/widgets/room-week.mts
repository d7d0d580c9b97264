// Room week: spaces_get_room_schedule's entries by day, with set-up from, start, end and cleared by, layout and numbers.
import { el, startWidget } from '../../widget-view.mjs';

interface Entry {
  occurrenceId: string;
  title: string;
  localDate: string;
  setupFrom: string;
  start: string;
  end: string;
  clearedBy: string;
  status: string;
  shared: boolean;
  layout: string | null;
  layoutSeats: number | null;
  expectedAttendance: number | null;
  resources: Array<{ name: string; quantity: number }>;
}

interface Schedule {
  room: { name: string; building: string; capacity: number };
  from: string;
  days: number;
  timeZone: string;
  entries: Entry[];
  blockouts: Array<{ id: string; reason: string; startsAt: string; endsAt: string }>;
}

/** 2026-12-04 reads as "Fri 4 Dec". */
function dayLabel(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });
}

function datesOf(from: string, days: number): string[] {
  return Array.from({ length: days }, (_, i) => new Date(Date.parse(`${from}T12:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10));
}

function entry(item: Entry): HTMLElement {
  const details = [
    item.layout ? `${item.layout}${item.layoutSeats ? ` (${item.layoutSeats} seats)` : ''}` : null,
    item.expectedAttendance !== null ? `${item.expectedAttendance} expected` : null,
    ...item.resources.map((r) => `${r.quantity} × ${r.name}`),
    item.shared ? 'shared' : null,
  ].filter((part): part is string => part !== null);
  return el('li', { 'data-id': item.occurrenceId, 'data-status': item.status },
    el('span', { class: 'time' }, `${item.start}–${item.end}`),
    el('strong', {}, item.title),
    el('span', { class: 'muted' }, `set up from ${item.setupFrom}, clear by ${item.clearedBy}${item.status === 'pending' ? ' · awaiting approval' : ''}`),
    details.length ? el('p', {}, details.join(' · ')) : '');
}

function week(schedule: Schedule): Node {
  const byDay = new Map<string, Entry[]>();
  for (const item of schedule.entries) byDay.set(item.localDate, [...(byDay.get(item.localDate) ?? []), item]);
  return el('section', {},
    el('h1', {}, schedule.room.name),
    el('p', { class: 'muted', 'data-field': 'room' }, `${schedule.room.building} · holds ${schedule.room.capacity} · times in ${schedule.timeZone}`),
    schedule.blockouts.length ? el('ul', { class: 'blockouts' }, schedule.blockouts.map((b) => el('li', { 'data-id': b.id, role: 'note' }, `Blocked out: ${b.reason}`))) : '',
    el('ol', { class: 'days' }, datesOf(schedule.from, schedule.days).map((date) => el('li', { 'data-date': date },
      el('h2', {}, dayLabel(date)),
      (byDay.get(date) ?? []).length === 0 ? el('p', { class: 'muted' }, 'Free') : el('ul', { class: 'bookings' }, (byDay.get(date) ?? []).map(entry))))));
}

startWidget('steward-room-week', week);
