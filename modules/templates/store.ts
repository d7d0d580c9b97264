import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { listPage, notFound, type RowOf } from '../kit';
import { analyseContent, type Analysis, type Channel, type DeclaredVariable, type Purpose, type VersionContent } from './content';
import { Template, type TemplateVersion } from './models/templates';

export { VERSION_STATUSES, WHATSAPP_STATUSES, type VersionStatus, type WhatsAppStatus } from './models/templates';

/** Rows as `SELECT *` reads them, typed by the models (which test/unit/model-columns.test.ts holds to the migrated schema). */
export type TemplateRow = RowOf<Template>;
export type VersionRow = RowOf<TemplateVersion>;

/** A version with the template fields its content is judged by. */
export interface VersionWithTemplate extends VersionRow {
  channel: Channel; purpose: Purpose; locale: string; template_name: string; template_archived_at: Date | null;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function templateView(row: TemplateRow, active: { id: string; number: number } | null, latestNumber: number) {
  return {
    id: row.id, name: row.name, channel: row.channel, purpose: row.purpose, locale: row.locale, description: row.description,
    archived: row.archived_at !== null, archivedAt: iso(row.archived_at), createdAt: row.created_at.toISOString(),
    activeVersion: active, latestVersionNumber: latestNumber,
  };
}
export type TemplateView = ReturnType<typeof templateView>;

export function versionView(row: VersionRow) {
  return {
    id: row.id, templateId: row.template_id, number: row.number, status: row.status, subject: row.subject, body: row.body, html: row.html,
    variables: row.variables.map((variable) => ({ name: variable.name, example: variable.example ?? null, description: variable.description ?? null })),
    createdAt: row.created_at.toISOString(), approvedAt: iso(row.approved_at), activatedAt: iso(row.activated_at), archivedAt: iso(row.archived_at),
    whatsapp: row.whatsapp_template_id === null ? null : {
      status: row.whatsapp_status!, name: row.whatsapp_name, providerTemplateId: row.whatsapp_template_id, category: row.whatsapp_category,
      reason: row.whatsapp_reason, submittedAt: iso(row.whatsapp_submitted_at), statusAt: iso(row.whatsapp_status_at),
    },
  };
}
export type VersionView = ReturnType<typeof versionView>;

export function contentOf(row: VersionWithTemplate): VersionContent {
  return { channel: row.channel, purpose: row.purpose, locale: row.locale, subject: row.subject, body: row.body, html: row.html, variables: row.variables };
}

const LIST_HINT = 'templates_list_templates lists templates; templates_get_template shows a template\'s versions.';

export async function requireTemplate(db: Queryable, orgId: string, templateId: string, options: { lock?: boolean; includeArchived?: boolean } = {}): Promise<TemplateRow> {
  const row = await queryOne<TemplateRow>(db, `SELECT * FROM templates WHERE org_id = $1 AND id = $2 ${options.lock ? 'FOR UPDATE' : ''}`, [orgId, templateId]);
  if (!row || (row.archived_at && !options.includeArchived)) throw notFound('Template', templateId, LIST_HINT);
  return row;
}

export async function requireVersion(db: Queryable, orgId: string, versionId: string, lock = false): Promise<VersionWithTemplate> {
  const row = await queryOne<VersionWithTemplate>(db, `SELECT v.*, t.channel, t.purpose, t.locale, t.name AS template_name, t.archived_at AS template_archived_at
    FROM template_versions v JOIN templates t ON t.id = v.template_id AND t.org_id = v.org_id
    WHERE v.org_id = $1 AND v.id = $2 ${lock ? 'FOR UPDATE OF v' : ''}`, [orgId, versionId]);
  if (!row) throw notFound('Template version', versionId, LIST_HINT);
  return row;
}

async function activeAndLatest(db: Queryable, orgId: string, templateId: string): Promise<{ active: { id: string; number: number } | null; latest: number }> {
  const row = await queryOne<{ active_id: string | null; active_number: number | null; latest: number | null }>(db, `SELECT
    (SELECT id FROM template_versions WHERE org_id = $1 AND template_id = $2 AND status = 'active') AS active_id,
    (SELECT number FROM template_versions WHERE org_id = $1 AND template_id = $2 AND status = 'active') AS active_number,
    (SELECT max(number) FROM template_versions WHERE org_id = $1 AND template_id = $2) AS latest`, [orgId, templateId]);
  return { active: row?.active_id ? { id: row.active_id, number: row.active_number! } : null, latest: row?.latest ?? 0 };
}

export async function getTemplate(db: Queryable, orgId: string, templateId: string, includeArchived = true) {
  const template = await requireTemplate(db, orgId, templateId, { includeArchived });
  const { active, latest } = await activeAndLatest(db, orgId, templateId);
  const versions = await queryRows<VersionRow>(db, 'SELECT * FROM template_versions WHERE org_id = $1 AND template_id = $2 ORDER BY number DESC', [orgId, templateId]);
  return { template: templateView(template, active, latest), versions: versions.map(versionView) };
}

export interface ContentInput {
  subject?: string | null;
  body?: string;
  html?: string | null;
  variables?: DeclaredVariable[];
}

function assertDistinctVariables(variables: DeclaredVariable[]): void {
  const seen = new Set<string>();
  for (const variable of variables) {
    if (seen.has(variable.name)) {
      throw new StewardError('validation_failed', `Variable ${variable.name} is declared twice`, { issues: [{ path: 'variables', message: `${variable.name} appears more than once` }] });
    }
    seen.add(variable.name);
  }
}

async function insertVersion(db: Queryable, orgId: string, templateId: string, number: number, content: Required<ContentInput>, userId: string | null): Promise<VersionRow> {
  assertDistinctVariables(content.variables);
  const row = await queryOne<VersionRow>(db, `INSERT INTO template_versions (id, org_id, template_id, number, subject, body, html, variables, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9) RETURNING *`,
  [randomUUID(), orgId, templateId, number, content.subject, content.body, content.html, JSON.stringify(content.variables), userId]);
  return row!;
}

export async function createTemplate(
  db: Queryable, orgId: string, userId: string | null,
  input: { name: string; channel: Channel; purpose: Purpose; locale: string; description?: string } & Required<Pick<ContentInput, 'body'>> & ContentInput,
) {
  const id = randomUUID();
  const inserted = await queryOne<TemplateRow>(db, `INSERT INTO templates (id, org_id, name, channel, purpose, locale, description, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING *`,
  [id, orgId, input.name, input.channel, input.purpose, input.locale, input.description ?? null, userId]);
  if (!inserted) {
    throw new StewardError('conflict', `A template named "${input.name}" already exists`, { hint: 'Choose another name, or add a version to the existing template with templates_create_version.' });
  }
  const version = await insertVersion(db, orgId, id, 1, {
    subject: input.subject ?? null, body: input.body, html: input.html ?? null, variables: input.variables ?? [],
  }, userId);
  return { template: templateView(inserted, null, 1), version: versionView(version) };
}

/**
 * A new draft version: the given fields over the latest version's. The template row is locked so
 * two concurrent edits get consecutive numbers; the active version is left as it is until the new
 * one is activated.
 */
export async function createVersion(db: Queryable, orgId: string, userId: string | null, templateId: string, changes: ContentInput) {
  await requireTemplate(db, orgId, templateId, { lock: true });
  const latest = await queryOne<VersionRow>(db, 'SELECT * FROM template_versions WHERE org_id = $1 AND template_id = $2 ORDER BY number DESC LIMIT 1', [orgId, templateId]);
  const content: Required<ContentInput> = {
    subject: changes.subject !== undefined ? changes.subject : latest?.subject ?? null,
    body: changes.body ?? latest!.body,
    html: changes.html !== undefined ? changes.html : latest?.html ?? null,
    variables: changes.variables ?? latest?.variables ?? [],
  };
  const version = await insertVersion(db, orgId, templateId, (latest?.number ?? 0) + 1, content, userId);
  return { version: versionView(version), basedOn: latest ? { id: latest.id, number: latest.number } : null };
}

export async function listTemplates(
  db: Queryable, orgId: string,
  filter: { channel?: Channel; purpose?: Purpose; includeArchived: boolean; nameContains?: string; limit: number; cursor?: string },
) {
  const values: unknown[] = [filter.channel ?? null, filter.purpose ?? null, filter.includeArchived, filter.nameContains ?? null];
  const page = await listPage(db, {
    model: Template, orgId, limit: filter.limit, cursor: filter.cursor, includeDeleted: true,
    where: `($4::text IS NULL OR channel = $4) AND ($5::text IS NULL OR purpose = $5) AND ($6::boolean OR archived_at IS NULL)
      AND ($7::text IS NULL OR strpos(lower(name), lower($7)) > 0)`,
    values,
  });
  const templates = [];
  for (const row of page.rows) {
    const { active, latest } = await activeAndLatest(db, orgId, row.id);
    templates.push(templateView(row, active, latest));
  }
  return { templates, nextCursor: page.nextCursor };
}

function versionStateError(version: VersionRow, wanted: string): StewardError {
  return new StewardError('conflict', `Version ${version.number} is ${version.status}; ${wanted}`, {
    hint: 'Create a new version with templates_create_version to change a template.',
  });
}

/**
 * Lints a version; a clean email or SMS draft becomes approved. A WhatsApp version is approved
 * only by the provider's review (templates_submit_whatsapp_template), so validation just reports.
 */
export async function validateVersion(db: Queryable, orgId: string, versionId: string): Promise<{ analysis: Analysis; version: VersionWithTemplate }> {
  const version = await requireVersion(db, orgId, versionId, true);
  const analysis = analyseContent(contentOf(version));
  if (analysis.errors.length === 0 && version.status === 'draft' && version.channel !== 'whatsapp') {
    await db.query("UPDATE template_versions SET status = 'approved', approved_at = now() WHERE org_id = $1 AND id = $2", [orgId, versionId]);
    return { analysis, version: await requireVersion(db, orgId, versionId) };
  }
  return { analysis, version };
}

function refuseWithFindings(analysis: Analysis): StewardError {
  return new StewardError('validation_failed', `This version has ${analysis.errors.length} problem(s) to fix first`, {
    hint: 'templates_validate_version lists them; fix them in a new version with templates_create_version.',
    issues: analysis.errors.map((error) => ({ path: error.field ?? 'body', message: error.message })),
  });
}

/**
 * Makes a version the template's one active version; the one active before is archived in the same
 * transaction. The template row is locked first, so concurrent activations run one after another
 * and the partial unique index backs that up: there is never a moment with two.
 */
export async function activateVersion(db: Queryable, orgId: string, versionId: string) {
  const probe = await requireVersion(db, orgId, versionId);
  const template = await requireTemplate(db, orgId, probe.template_id, { lock: true });
  const version = await requireVersion(db, orgId, versionId, true);
  if (version.status === 'active') return { version: versionView(version), previous: null, changed: false };
  if (version.status === 'archived') throw versionStateError(version, 'an archived version is not activated again');
  const analysis = analyseContent(contentOf(version));
  if (analysis.errors.length > 0) throw refuseWithFindings(analysis);
  if (template.channel === 'whatsapp' && version.whatsapp_status !== 'approved') {
    throw new StewardError('conflict', `WhatsApp has not approved this version (review: ${version.whatsapp_status ?? 'not submitted'})`, {
      hint: version.whatsapp_status === null ? 'Submit it with templates_submit_whatsapp_template and activate once WhatsApp approves it.' : 'Wait for WhatsApp\'s review; templates_get_template shows its state.',
    });
  }
  const previous = await queryOne<VersionRow>(db, `UPDATE template_versions SET status = 'archived', archived_at = now()
    WHERE org_id = $1 AND template_id = $2 AND status = 'active' RETURNING *`, [orgId, template.id]);
  await db.query(`UPDATE template_versions SET status = 'active', activated_at = now(), approved_at = COALESCE(approved_at, now())
    WHERE org_id = $1 AND id = $2`, [orgId, versionId]);
  return { version: versionView(await requireVersion(db, orgId, versionId)), previous: previous ? { id: previous.id, number: previous.number } : null, changed: true };
}

/** Archives a template (its versions stay for the messages that name them); the name becomes free again. */
export async function archiveTemplate(db: Queryable, orgId: string, templateId: string, scheduledBroadcasts: (templateId: string) => Promise<number>) {
  const template = await requireTemplate(db, orgId, templateId, { lock: true, includeArchived: true });
  if (template.archived_at) return getTemplate(db, orgId, templateId);
  const using = await scheduledBroadcasts(templateId);
  if (using > 0) {
    throw new StewardError('conflict', `${using} scheduled broadcast(s) still use this template`, {
      hint: 'Cancel them with channels_cancel_broadcast (or let them finish) before archiving the template.',
      details: { scheduledBroadcasts: using },
    });
  }
  await db.query('UPDATE templates SET archived_at = now() WHERE org_id = $1 AND id = $2', [orgId, templateId]);
  await db.query(`UPDATE template_versions SET status = 'archived', archived_at = now() WHERE org_id = $1 AND template_id = $2 AND status = 'active'`, [orgId, templateId]);
  return getTemplate(db, orgId, templateId);
}
