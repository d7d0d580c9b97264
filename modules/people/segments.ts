import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { col, fn } from 'sequelize';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { withModels } from '../../db/sequelize';
import { displayNameOf, requireContact } from './contacts';
import { Segment as SegmentModel, SegmentMember } from './models';
import { compileRules, ruleSetSchema, type RuleSet } from './segment-rules';

export interface SegmentTemplate {
  id: string;
  name: string;
  description: string;
  rules: RuleSet | null;
}

/** Starting points; `custom` takes the caller's own rules. */
export const SEGMENT_TEMPLATES: readonly SegmentTemplate[] = [
  { id: 'new_visitors', name: 'New visitors', description: 'First-time and returning visitors', rules: { match: 'all', rules: [{ field: 'membershipStatus', operator: 'in', value: ['first_time_visitor', 'returning_visitor'] }] } },
  { id: 'members', name: 'Members', description: 'Everyone whose membership stage is member', rules: { match: 'all', rules: [{ field: 'membershipStatus', operator: 'equals', value: 'member' }] } },
  { id: 'lapsed', name: 'Lapsed', description: 'People whose membership stage is inactive', rules: { match: 'all', rules: [{ field: 'membershipStatus', operator: 'equals', value: 'inactive' }] } },
  { id: 'email_subscribers', name: 'Email subscribers', description: 'Subscribed to email, with an address', rules: { match: 'all', rules: [{ field: 'status', operator: 'equals', value: 'subscribed' }, { field: 'email', operator: 'is_not_empty' }] } },
  { id: 'whatsapp_opted_in', name: 'WhatsApp opted in', description: 'Consented to WhatsApp, with a phone number', rules: { match: 'all', rules: [{ field: 'whatsappConsent', operator: 'is_true' }, { field: 'phone', operator: 'is_not_empty' }] } },
  { id: 'missing_contact_details', name: 'Missing contact details', description: 'No email or no phone', rules: { match: 'any', rules: [{ field: 'email', operator: 'is_empty' }, { field: 'phone', operator: 'is_empty' }] } },
  { id: 'added_last_30_days', name: 'Added in the last 30 days', description: 'New to the CRM this month', rules: { match: 'all', rules: [{ field: 'createdAt', operator: 'within_last_days', value: 30 }] } },
  { id: 'custom', name: 'Custom', description: 'Your own rules', rules: null },
];

/** A segment as the tools show it. Its rules were checked by compileRules before they were stored. */
function segmentView(segment: SegmentModel) {
  return {
    id: segment.id, name: segment.name, description: segment.description, templateId: segment.templateId, rules: segment.rules as RuleSet,
    memberCount: segment.memberCount, refreshedAt: segment.refreshedAt ? segment.refreshedAt.toISOString() : null,
  };
}

export type Segment = ReturnType<typeof segmentView>;

export async function listSegments(db: Queryable, orgId: string): Promise<Segment[]> {
  // lower() here takes a column, never a caller's value, so the finder is safe from the fn() $ rewrite.
  const segments = await withModels(db, (transaction) => SegmentModel.findAll({
    where: { orgId }, order: [[fn('lower', col('name')), 'ASC']], transaction,
  }));
  return segments.map(segmentView);
}

export async function requireSegment(db: Queryable, orgId: string, segmentId: string): Promise<Segment> {
  const segment = await withModels(db, (transaction) => SegmentModel.findOne({ where: { orgId, id: segmentId }, transaction }));
  if (!segment) throw new StewardError('not_found', `Segment ${segmentId} was not found`, { hint: 'people_list_segments_api lists segments.' });
  return segmentView(segment);
}

// The rule compiler writes SQL, so everything built on it stays SQL.
function whereFor(orgId: string, rules: RuleSet, params: unknown[]): string {
  params.push(orgId);
  const orgParam = `$${params.length}`;
  return `c.org_id = ${orgParam} AND c.deleted_at IS NULL AND (${compileRules(rules, params)})`;
}

/** Who the rules select right now, without saving anything. */
export async function previewRules(db: Queryable, orgId: string, rules: RuleSet, limit: number) {
  const params: unknown[] = [];
  const where = whereFor(orgId, rules, params);
  const count = await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM contacts c WHERE ${where}`, params);
  const sample = await queryRows<{ id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(db,
    `SELECT c.id, c.first_name, c.last_name, c.preferred_name, c.email FROM contacts c WHERE ${where} ORDER BY lower(c.last_name), lower(c.first_name) LIMIT ${Number(limit)}`, params);
  return { count: count?.n ?? 0, sample: sample.map((row) => ({ contactId: row.id, displayName: displayNameOf(row), email: row.email })) };
}

/** Stores how many live contacts the segment holds now. */
async function updateMemberCount(db: Queryable, orgId: string, segmentId: string, options: { refreshed: boolean }): Promise<number> {
  // Live members only: a join, so SQL.
  const total = await queryOne<{ n: number }>(db, `
    SELECT count(*)::int AS n FROM segment_members m JOIN contacts c ON c.id = m.contact_id AND c.deleted_at IS NULL
    WHERE m.org_id = $1 AND m.segment_id = $2`, [orgId, segmentId]);
  const n = total?.n ?? 0;
  // updated_at is the model's DEFAULT and refreshed_at the transaction's now(), one clock for both.
  const changes: Partial<Pick<SegmentModel, 'memberCount' | 'refreshedAt'>> = { memberCount: n };
  await withModels(db, (transaction) => SegmentModel.update(
    options.refreshed ? { ...changes, refreshedAt: fn('now') } : changes,
    { where: { orgId, id: segmentId }, transaction },
  ));
  return n;
}

/** Rebuilds rule-based membership; manual additions stay. */
export async function refreshSegment(db: Queryable, orgId: string, segmentId: string) {
  const segment = await requireSegment(db, orgId, segmentId);
  const before = await withModels(db, async (transaction) => {
    const ruleMembers = { orgId, segmentId, source: 'rule' };
    const n = await SegmentMember.count({ where: ruleMembers, transaction });
    await SegmentMember.destroy({ where: ruleMembers, transaction });
    return n;
  });
  const params: unknown[] = [segmentId];
  const where = whereFor(orgId, segment.rules, params);
  const inserted = await db.query(`
    INSERT INTO segment_members (org_id, segment_id, contact_id, source)
    SELECT c.org_id, $1, c.id, 'rule' FROM contacts c WHERE ${where}
    ON CONFLICT (segment_id, contact_id) DO NOTHING`, params);
  await updateMemberCount(db, orgId, segmentId, { refreshed: true });
  return { segment: await requireSegment(db, orgId, segmentId), ruleMatchesBefore: before, ruleMatchesNow: inserted.rowCount ?? 0 };
}

// Compares lower(name), as the unique index does: SQL (see db/sequelize.ts on fn()).
async function assertNameFree(db: Queryable, orgId: string, name: string, exceptId?: string) {
  const clash = await queryOne(db, 'SELECT 1 FROM segments WHERE org_id = $1 AND lower(name) = lower($2) AND ($3::uuid IS NULL OR id <> $3)', [orgId, name, exceptId ?? null]);
  if (clash) throw new StewardError('conflict', `A segment named "${name}" already exists`);
}

export async function createSegmentFromTemplate(db: Queryable, orgId: string, input: { templateId: string; name?: string; description?: string; rules?: RuleSet }) {
  const template = SEGMENT_TEMPLATES.find((t) => t.id === input.templateId);
  if (!template) {
    throw new StewardError('validation_failed', `Unknown segment template "${input.templateId}"`, { hint: `Templates: ${SEGMENT_TEMPLATES.map((t) => t.id).join(', ')}` });
  }
  const rules = input.rules ?? template.rules;
  if (!rules) throw new StewardError('validation_failed', 'The custom template needs rules', { issues: [{ path: 'rules', message: 'required for templateId custom' }] });
  compileRules(rules, []);
  const name = input.name ?? template.name;
  await assertNameFree(db, orgId, name);
  const id = randomUUID();
  await withModels(db, (transaction) => SegmentModel.create(
    { id, orgId, name, description: input.description ?? template.description, templateId: template.id, rules },
    { transaction },
  ));
  return (await refreshSegment(db, orgId, id)).segment;
}

export async function updateSegment(db: Queryable, orgId: string, input: { segmentId: string; name?: string; description?: string | null; rules?: RuleSet }) {
  await requireSegment(db, orgId, input.segmentId);
  if (input.name === undefined && input.description === undefined && input.rules === undefined) {
    throw new StewardError('validation_failed', 'Nothing to update: give name, description or rules');
  }
  if (input.rules) compileRules(ruleSetSchema.parse(input.rules), []);
  if (input.name) await assertNameFree(db, orgId, input.name, input.segmentId);
  // Name and rules change when given; description whenever given (null clears it). updated_at is the model's DEFAULT.
  const changes: Partial<Pick<SegmentModel, 'name' | 'rules' | 'description'>> = {};
  if (input.name != null) changes.name = input.name;
  if (input.rules) changes.rules = input.rules;
  if (input.description !== undefined) changes.description = input.description;
  await withModels(db, (transaction) => SegmentModel.update(changes, { where: { orgId, id: input.segmentId }, transaction }));
  return input.rules ? (await refreshSegment(db, orgId, input.segmentId)).segment : requireSegment(db, orgId, input.segmentId);
}

// Live members with their names: a join, so SQL.
export async function listSegmentContacts(db: Queryable, orgId: string, segmentId: string, page: { limit: number; offset: number }) {
  const segment = await requireSegment(db, orgId, segmentId);
  const rows = await queryRows<{ id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; source: 'rule' | 'manual' }>(db, `
    SELECT c.id, c.first_name, c.last_name, c.preferred_name, c.email, m.source
    FROM segment_members m JOIN contacts c ON c.id = m.contact_id AND c.deleted_at IS NULL
    WHERE m.org_id = $1 AND m.segment_id = $2 ORDER BY lower(c.last_name), lower(c.first_name), c.id LIMIT $3 OFFSET $4`,
    [orgId, segmentId, page.limit, page.offset]);
  return {
    segmentId, memberCount: segment.memberCount, refreshedAt: segment.refreshedAt,
    contacts: rows.map((row) => ({ contactId: row.id, displayName: displayNameOf(row), email: row.email, source: row.source })),
  };
}

/** Adds a contact by hand; it stays a member across refreshes. */
export async function addContactToSegment(db: Queryable, orgId: string, segmentId: string, contactId: string) {
  await requireSegment(db, orgId, segmentId);
  await requireContact(db, orgId, contactId);
  // An upsert whose row count says whether anything changed: SQL.
  const result = await db.query(`INSERT INTO segment_members (org_id, segment_id, contact_id, source) VALUES ($1, $2, $3, 'manual')
    ON CONFLICT (segment_id, contact_id) DO UPDATE SET source = 'manual' WHERE segment_members.source <> 'manual'`, [orgId, segmentId, contactId]);
  const memberCount = await updateMemberCount(db, orgId, segmentId, { refreshed: false });
  return { segmentId, contactId, alreadyManualMember: (result.rowCount ?? 0) === 0, memberCount };
}

/** Deletes a segment and its memberships; the contacts themselves are untouched. */
export async function deleteSegment(db: Queryable, orgId: string, segmentId: string): Promise<{ id: string; name: string; removedMemberships: number }> {
  const segment = await requireSegment(db, orgId, segmentId);
  const members = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM segment_members WHERE org_id = $1 AND segment_id = $2', [orgId, segmentId]);
  await withModels(db, (transaction) => SegmentModel.destroy({ where: { orgId, id: segmentId }, transaction }));
  return { id: segmentId, name: segment.name, removedMemberships: members?.n ?? 0 };
}
