import { StewardError } from '../../core/errors';
import { queryOne, type Queryable } from '../../db/pool';
import { notFound } from '../kit';
import { requireContact } from '../people/api';
import { getOrgSettings } from '../platform/api';
import { renderContent, type Channel, type Purpose, type WhatsAppTemplateMessage } from './content';
import type { SmsSegments } from './sms-encoding';
import { contentOf, requireVersion, type VersionWithTemplate } from './store';
import { missingVariablesError, syntaxError } from './syntax';

/**
 * What other modules use of templates: the active version of a template, and a rendering of it
 * for one contact that is either complete or refused (never "Hi {{first_name}}").
 */

export interface ActiveVersion {
  versionId: string;
  templateId: string;
  channel: Channel;
  purpose: Purpose;
  locale: string;
  number: number;
}

/** The template's active version, or null when none is active (or the template is archived, missing or another organisation's). */
export async function activeVersionOf(db: Queryable, orgId: string, templateId: string): Promise<ActiveVersion | null> {
  const row = await queryOne<{ id: string; template_id: string; channel: Channel; purpose: Purpose; locale: string; number: number }>(db, `SELECT v.id, v.template_id, t.channel, t.purpose, t.locale, v.number
    FROM template_versions v JOIN templates t ON t.id = v.template_id AND t.org_id = v.org_id
    WHERE v.org_id = $1 AND v.template_id = $2 AND v.status = 'active' AND t.archived_at IS NULL`, [orgId, templateId]);
  return row ? { versionId: row.id, templateId: row.template_id, channel: row.channel, purpose: row.purpose, locale: row.locale, number: row.number } : null;
}

export interface RenderedForSend {
  versionId: string;
  templateId: string;
  purpose: Purpose;
  subject: string | null;
  text: string;
  html: string | null;
  /** The `template` object of a Meta Cloud API template message (WhatsApp templates only). */
  whatsapp?: WhatsAppTemplateMessage;
  /** Encoding and parts of the rendered text (SMS templates only): the estimate a send meters. */
  sms?: SmsSegments;
}

/** first_name, last_name, full_name and organisation_name of a contact; a foreign or missing contact is not found. */
export async function standardValuesFor(db: Queryable, orgId: string, contactId: string): Promise<Record<string, string>> {
  const contact = await requireContact(db, orgId, contactId);
  const org = await getOrgSettings(db, orgId);
  const first = contact.preferredName ?? contact.firstName ?? '';
  const last = contact.lastName ?? '';
  const values: Record<string, string> = { organisation_name: org.name };
  if (first) values.first_name = first;
  if (last) values.last_name = last;
  const full = [first, last].filter(Boolean).join(' ');
  if (full) values.full_name = full;
  return values;
}

async function versionForSend(db: Queryable, orgId: string, input: { templateId?: string; versionId?: string; approvedSend?: boolean }): Promise<VersionWithTemplate> {
  if (input.versionId) {
    const version = await requireVersion(db, orgId, input.versionId);
    if ((input.templateId && version.template_id !== input.templateId) || version.template_archived_at) throw notFound('Template version', input.versionId);
    if (!sendable(version, input.approvedSend === true)) {
      throw new StewardError('conflict', `Template version ${version.number} is ${version.status} and cannot be sent`, { hint: 'Send the template\'s active version (pass templateId), or activate this one with templates_activate_version.' });
    }
    return version;
  }
  if (!input.templateId) throw new StewardError('validation_failed', 'Name a template or a template version', { issues: [{ path: 'templateId', message: 'give templateId or versionId' }] });
  const active = await activeVersionOf(db, orgId, input.templateId);
  if (!active) {
    const exists = await queryOne(db, 'SELECT 1 FROM templates WHERE org_id = $1 AND id = $2 AND archived_at IS NULL', [orgId, input.templateId]);
    if (!exists) throw notFound('Template', input.templateId, 'templates_list_templates lists templates.');
    throw new StewardError('conflict', 'This template has no active version', { hint: 'Activate a version with templates_activate_version first.' });
  }
  return requireVersion(db, orgId, active.versionId);
}

/**
 * Whether a named version may be sent: an active or approved one; for a send a person previewed or
 * approved (a scheduled broadcast), also the version that was active then and has since been
 * replaced, since that, not its successor, is what was approved.
 */
function sendable(version: VersionWithTemplate, approvedSend: boolean): boolean {
  if (version.status === 'active' || version.status === 'approved') return true;
  return approvedSend && version.status === 'archived' && version.activated_at !== null;
}

/**
 * Renders a template for one contact on one channel: the template's ACTIVE version when given a
 * template id, else the given (active or approved) version. Values are the contact's standard set
 * overlaid by `variables`. Missing variables refuse the whole rendering (validation_failed, with
 * details.missing listing them); merge data is HTML-escaped in the email's HTML part.
 */
export async function renderForSend(
  db: Queryable, orgId: string,
  input: { templateId?: string; versionId?: string; contactId: string; variables?: Record<string, string>; channel: Channel; approvedSend?: boolean },
): Promise<RenderedForSend> {
  const version = await versionForSend(db, orgId, input);
  if (version.channel !== input.channel) {
    throw new StewardError('validation_failed', `This is a ${version.channel} template, not ${input.channel}`, {
      issues: [{ path: 'templateId', message: `a ${version.channel} template cannot be sent as ${input.channel}` }],
    });
  }
  if (version.channel === 'whatsapp' && version.whatsapp_status !== 'approved') {
    throw new StewardError('conflict', `WhatsApp has not approved this template version (review: ${version.whatsapp_status ?? 'not submitted'})`, {
      hint: 'Only a template WhatsApp approved can be sent; templates_get_template shows its review.',
    });
  }
  const values = { ...(await standardValuesFor(db, orgId, input.contactId)), ...(input.variables ?? {}) };
  const attempt = renderContent(contentOf(version), values, version.whatsapp_name ?? undefined);
  if (!attempt.ok) throw attempt.reason === 'syntax' ? syntaxError(attempt.problems) : missingVariablesError(attempt.missing);
  return { versionId: version.id, templateId: version.template_id, purpose: version.purpose, ...attempt.rendered };
}
