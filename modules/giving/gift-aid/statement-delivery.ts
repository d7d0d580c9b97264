import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { defineOutboxSource, type OutboxDraft, type OutboxProblem } from '../../outbox-source';
import type { StatementContent } from './statements';
import { formatMinorUnits } from '../money';
import { escapeHtml } from '../../../core/html';

/**
 * Emailed giving statements: the giving module's outbox source. The outbox owns the send (one
 * row per statement, keyed by the statement id, counted once against email_sends); this says what
 * a statement allows and records what became of it on the statement.
 *
 * A statement is a service message a person asked for (giving_generate_statements or
 * giving_resend_statements, both giving:write), not marketing: it goes to any live contact with
 * an email address, whatever their marketing consent, but never to a contact who has been erased
 * (people_directory lists live contacts only). No approval step: the caller holding giving:write
 * is the person deciding, and a statement only repeats figures the organisation already holds.
 */
export const STATEMENT_SOURCE_KIND = 'giving.statement';

export type StatementDeliveryStatus = 'queued' | 'sent' | 'failed' | 'no_email';

/** Where a statement's email stands; every field null for a statement made for download only. */
export interface StatementDelivery {
  status: StatementDeliveryStatus | null;
  error: OutboxProblem | null;
  sentAt: string | null;
}

interface StatementDraft extends OutboxDraft {
  contactId: string;
}

// ---------------------------------------------------------------- rendering

function periodLabel(content: StatementContent): string {
  const span = `${content.periodStart} to ${content.periodEnd}`;
  return content.taxYear ? `tax year ${content.taxYear} (${span})` : span;
}

/** The Gift Aid sentence, only where Gift Aid was claimed on these gifts. */
function giftAidNote(content: StatementContent): string | null {
  if (content.giftAidClaimed === 0) return null;
  return `Gift Aid claimed on these gifts: ${formatMinorUnits(content.giftAidClaimed, content.currency)}. `
    + 'Thank you for your Gift Aid declaration; please tell us if you no longer pay enough UK Income Tax or Capital Gains Tax to cover it.';
}

function fundsOf(line: StatementContent['lines'][number]): string {
  return line.funds.length > 0 ? line.funds.join(', ') : 'General';
}

export function statementSubject(content: StatementContent): string {
  return `Your giving statement from ${content.organisation}: ${periodLabel(content)}`;
}

export function statementEmailText(content: StatementContent): string {
  const note = giftAidNote(content);
  return [
    `Dear ${content.giver.name},`,
    '',
    `Here is your giving statement from ${content.organisation} for ${periodLabel(content)}.`,
    '',
    ...content.lines.map((line) => `${line.date}  ${fundsOf(line)}  ${formatMinorUnits(line.amount, content.currency)}`),
    '',
    `Total: ${formatMinorUnits(content.total, content.currency)}`,
    ...(note ? ['', note] : []),
    '',
    `Thank you for your generosity. ${content.organisation}`,
  ].join('\n');
}


export function statementEmailHtml(content: StatementContent): string {
  const money = (minor: number) => escapeHtml(formatMinorUnits(minor, content.currency));
  const rows = content.lines.map((line) => `<tr><td>${escapeHtml(line.date)}</td><td>${escapeHtml(fundsOf(line))}</td><td style="text-align:right">${money(line.amount)}</td></tr>`);
  const note = giftAidNote(content);
  return [
    `<p>Dear ${escapeHtml(content.giver.name)},</p>`,
    `<p>Here is your giving statement from <strong>${escapeHtml(content.organisation)}</strong> for ${escapeHtml(periodLabel(content))}.</p>`,
    '<table cellpadding="4"><thead><tr><th align="left">Date</th><th align="left">Fund</th><th align="right">Amount</th></tr></thead><tbody>',
    ...rows,
    `</tbody><tfoot><tr><th align="left" colspan="2">Total</th><th align="right">${money(content.total)}</th></tr></tfoot></table>`,
    ...(note ? [`<p>${escapeHtml(note)}</p>`] : []),
    `<p>Thank you for your generosity. ${escapeHtml(content.organisation)}</p>`,
  ].join('\n');
}

// ---------------------------------------------------------------- the outbox source

interface LockedStatement {
  delivery_status: StatementDeliveryStatus | null;
  contact_id: string | null;
  content: StatementContent;
}

async function setDelivery(db: Queryable, orgId: string, id: string, status: StatementDeliveryStatus, problem: OutboxProblem | null): Promise<void> {
  // A statement recorded as sent stays sent: a late failure report of an earlier attempt changes nothing.
  await db.query(`UPDATE giving_statements SET delivery_status = $3, delivery_error = $4
    WHERE org_id = $1 AND id = $2 AND delivery_status IS DISTINCT FROM 'sent'`, [orgId, id, status, problem ? JSON.stringify(problem) : null]);
}

/** Records why a send attempt did not finish (a failure the outbox leaves for another attempt), unless it went meanwhile. */
export function recordStatementSendFailure(db: Queryable, orgId: string, id: string, problem: OutboxProblem): Promise<void> {
  return setDelivery(db, orgId, id, 'failed', problem);
}

export const statementDelivery = defineOutboxSource<StatementDraft>({
  kind: STATEMENT_SOURCE_KIND,
  keyOf: (statementId) => `giving-statement-${statementId}`,
  usageTool: 'giving_generate_statements',
  meterFor: () => 'email_sends',

  async lock(db, orgId, statementId) {
    const row = await queryOne<LockedStatement>(db,
      'SELECT delivery_status, contact_id, content FROM giving_statements WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, statementId]);
    if (!row) throw new StewardError('not_found', `Statement ${statementId} was not found`);
    if (row.delivery_status === 'sent') return { kind: 'delivered' };
    // A download statement, or one whose giver had no address, waits for giving_resend_statements to queue it.
    if ((row.delivery_status !== 'queued' && row.delivery_status !== 'failed') || !row.contact_id) return { kind: 'not_ready' };
    return {
      kind: 'ready',
      draft: {
        channel: 'email', contactId: row.contact_id, subject: statementSubject(row.content),
        body: statementEmailText(row.content), html: statementEmailHtml(row.content),
      },
    };
  },

  async recipient(db, orgId, draft, channel) {
    if (channel !== 'email') return { refused: { code: 'validation_failed', message: 'Statements go by email only' } };
    // The published view lists live contacts only: an erased giver is not there, and is never emailed.
    const contact = await queryOne<{ email: string | null }>(db, 'SELECT email FROM people_directory WHERE org_id = $1 AND id = $2', [orgId, draft.contactId]);
    if (!contact) return { refused: { code: 'contact_erased', message: 'The giver is no longer a contact, so the statement is not emailed' } };
    if (!contact.email) return { refused: { code: 'no_email', message: 'The giver has no email address; add one and resend, or download the statement' } };
    return { to: contact.email };
  },

  async delivered(db, orgId, statementId) {
    await db.query(`UPDATE giving_statements SET delivery_status = 'sent', delivery_error = NULL, sent_at = COALESCE(sent_at, now())
      WHERE org_id = $1 AND id = $2`, [orgId, statementId]);
  },

  async undelivered(db, orgId, statementId, problem) {
    await setDelivery(db, orgId, statementId, 'failed', problem);
  },

  async released(db, orgId, statementId) {
    await setDelivery(db, orgId, statementId, 'queued', null);
  },
});

/** Of the statements named, those of this organisation still waiting for their email (queued, or failed and worth another attempt). */
export async function statementsToSend(db: Queryable, orgId: string, statementIds: readonly string[]): Promise<string[]> {
  if (statementIds.length === 0) return [];
  const rows = await queryRows<{ id: string }>(db, `SELECT id FROM giving_statements
    WHERE org_id = $1 AND id = ANY($2::uuid[]) AND delivery_status IN ('queued', 'failed') ORDER BY created_at, id`, [orgId, [...new Set(statementIds)]]);
  return rows.map((row) => row.id);
}

export function deliveryOf(row: { delivery_status: StatementDeliveryStatus | null; delivery_error: OutboxProblem | null; sent_at: Date | null }): StatementDelivery {
  return { status: row.delivery_status, error: row.delivery_error, sentAt: row.sent_at ? row.sent_at.toISOString() : null };
}
