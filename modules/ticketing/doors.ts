import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound } from '../kit';
import { eventRow } from './events';
import { ticketCheckedIn } from './extension-points';

export interface CheckInResult {
  outcome: 'checked_in' | 'already_checked_in';
  ticket: { id: string; eventId: string; eventTitle: string; ticketTypeName: string; holderName: string | null; status: 'used' };
  firstCheckedInAt: string;
  attendanceRecorded: boolean;
}

/**
 * A ticket scanned at the door: the first scan marks it used (a conditional update, so two
 * scanners at once check it in once); every later scan answers when it was first used and changes
 * nothing. A void (refunded) ticket, or one for another event, is refused. The first scan is told
 * to the modules that record attendance (extension point ticketingCheckins).
 */
export async function checkInTicket(db: Queryable, orgId: string, userId: string | null, input: { barcode: string; eventId?: string }): Promise<CheckInResult> {
  const barcode = input.barcode.trim().toUpperCase();
  const ticket = await queryOne<{ id: string; event_id: string; status: string; holder_name: string | null; contact_id: string | null; type_name: string }>(db,
    `SELECT k.id, k.event_id, k.status, k.holder_name, k.contact_id, t.name AS type_name FROM ticketing_tickets k JOIN ticketing_ticket_types t ON t.id = k.ticket_type_id
      WHERE k.org_id = $1 AND k.barcode = $2`, [orgId, barcode]);
  if (!ticket) throw notFound('Ticket with barcode', barcode, 'Check the code was read whole; a ticket of another organisation is never found here.');
  const event = await eventRow(db, orgId, ticket.event_id);
  if (input.eventId && input.eventId !== ticket.event_id) {
    throw new StewardError('conflict', `This ticket is for ${event.title}, not this event`, { details: { reason: 'other_event', eventId: ticket.event_id } });
  }
  if (event.status === 'cancelled') throw new StewardError('conflict', `${event.title} was cancelled; its tickets are void`, { details: { reason: 'event_cancelled' } });
  if (ticket.status === 'void') throw new StewardError('conflict', 'This ticket is void (refunded or cancelled): do not admit on it', { details: { reason: 'ticket_void' } });
  const used = await queryOne<{ checked_in_at: Date }>(db, `UPDATE ticketing_tickets SET status = 'used', checked_in_at = now(), checked_in_by_user_id = $3
    WHERE org_id = $1 AND id = $2 AND status = 'active' RETURNING checked_in_at`, [orgId, ticket.id, userId]);
  const view = { id: ticket.id, eventId: event.id, eventTitle: event.title, ticketTypeName: ticket.type_name, holderName: ticket.holder_name, status: 'used' as const };
  if (!used) {
    const first = await queryOne<{ checked_in_at: Date | null; status: string }>(db, 'SELECT checked_in_at, status FROM ticketing_tickets WHERE org_id = $1 AND id = $2', [orgId, ticket.id]);
    if (first?.status !== 'used' || !first.checked_in_at) throw new StewardError('conflict', 'This ticket is void (refunded or cancelled): do not admit on it', { details: { reason: 'ticket_void' } });
    return { outcome: 'already_checked_in', ticket: view, firstCheckedInAt: first.checked_in_at.toISOString(), attendanceRecorded: false };
  }
  const attendanceRecorded = await ticketCheckedIn(db, orgId, {
    eventId: event.id, eventTitle: event.title, ticketId: ticket.id, ticketTypeName: ticket.type_name, contactId: ticket.contact_id,
    scheduleInstanceId: event.schedule_instance_id, checkedInAt: used.checked_in_at, checkedInByUserId: userId,
  });
  return { outcome: 'checked_in', ticket: view, firstCheckedInAt: used.checked_in_at.toISOString(), attendanceRecorded };
}

function csvCell(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  // A leading =, +, - or @ would run as a formula in a spreadsheet: quoted with a leading apostrophe.
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The door list: one row per live ticket (or every ticket with includeVoid), as CSV. */
export async function exportAttendees(db: Queryable, orgId: string, input: { eventId: string; includeVoid: boolean }): Promise<{ csv: string; rows: number; checkedIn: number; filename: string }> {
  const event = await eventRow(db, orgId, input.eventId);
  const rows = await queryRows<{ id: string; type_name: string; holder_name: string | null; buyer_name: string | null; buyer_email: string | null; status: string; order_id: string; checked_in_at: Date | null }>(db,
    `SELECT k.id, t.name AS type_name, k.holder_name, o.buyer_name, o.buyer_email, k.status, k.order_id, k.checked_in_at
      FROM ticketing_tickets k JOIN ticketing_ticket_types t ON t.id = k.ticket_type_id JOIN ticketing_orders o ON o.id = k.order_id
      WHERE k.org_id = $1 AND k.event_id = $2 AND ($3 OR k.status <> 'void') ORDER BY lower(COALESCE(k.holder_name, o.buyer_name, '')), k.created_at, k.id`, [orgId, event.id, input.includeVoid]);
  const header = ['ticket_id', 'ticket_type', 'holder_name', 'buyer_name', 'buyer_email', 'status', 'order_id', 'checked_in_at'];
  const lines = rows.map((row) => [row.id, row.type_name, row.holder_name, row.buyer_name, row.buyer_email, row.status, row.order_id, row.checked_in_at?.toISOString() ?? null].map(csvCell).join(','));
  const slug = event.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'event';
  return { csv: [header.join(','), ...lines].join('\n') + '\n', rows: rows.length, checkedIn: rows.filter((row) => row.status === 'used').length, filename: `${slug}-attendees.csv` };
}
