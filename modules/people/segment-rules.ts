import { z } from 'zod';
import { StewardError, quoteInput, type ErrorIssue } from '../../core/errors';
import { CONTACT_STATUSES, GENDERS, MEMBERSHIP_STATUSES } from './schemas';
import { escapeLike } from '../../db/sql';
import { isIsoDate } from './dates';

/**
 * Segment rules compile to a SQL boolean over the contacts table aliased `c`.
 * Fields and operators come from fixed tables here; every value a caller gives
 * travels as a bind parameter, never as SQL text.
 */
type FieldType = 'text' | 'enum' | 'number' | 'date' | 'boolean' | 'tag' | 'group';

interface FieldSpec {
  type: FieldType;
  label: string;
  sql?: string;
  values?: readonly string[];
}

export const SEGMENT_FIELDS: Record<string, FieldSpec> = {
  firstName: { type: 'text', label: 'First name', sql: 'c.first_name' },
  lastName: { type: 'text', label: 'Last name', sql: 'c.last_name' },
  preferredName: { type: 'text', label: 'Preferred name', sql: 'c.preferred_name' },
  email: { type: 'text', label: 'Email', sql: 'c.email' },
  phone: { type: 'text', label: 'Phone', sql: 'c.phone' },
  addressCity: { type: 'text', label: 'City', sql: 'c.address_city' },
  addressCounty: { type: 'text', label: 'County', sql: 'c.address_county' },
  addressPostcode: { type: 'text', label: 'Postcode', sql: 'c.address_postcode' },
  addressCountry: { type: 'text', label: 'Country', sql: 'c.address_country' },
  gender: { type: 'enum', label: 'Gender', sql: 'c.gender', values: GENDERS },
  status: { type: 'enum', label: 'Consent status', sql: 'c.status', values: CONTACT_STATUSES },
  membershipStatus: { type: 'enum', label: 'Membership stage', sql: 'c.membership_status', values: MEMBERSHIP_STATUSES },
  age: { type: 'number', label: 'Age in years', sql: 'extract(year FROM age(current_date, c.date_of_birth))::int' },
  dateOfBirth: { type: 'date', label: 'Date of birth', sql: 'c.date_of_birth' },
  createdAt: { type: 'date', label: 'Added to the CRM', sql: 'c.created_at::date' },
  firstVisitDate: { type: 'date', label: 'First visit', sql: 'c.first_visit_date' },
  membershipDate: { type: 'date', label: 'Became a member', sql: 'c.membership_date' },
  baptismDate: { type: 'date', label: 'Baptism', sql: 'c.baptism_date' },
  whatsappConsent: { type: 'boolean', label: 'WhatsApp consent', sql: 'c.whatsapp_consent' },
  // A household is the contacts sharing a family_id; a contact without one is a household of one.
  householdSize: { type: 'number', label: 'People in their household', sql: "(CASE WHEN c.family_id IS NULL THEN 1 ELSE (SELECT count(*)::int FROM contacts h WHERE h.org_id = c.org_id AND h.family_id = c.family_id AND h.deleted_at IS NULL) END)" },
  youngestInHouseholdAge: { type: 'number', label: 'Age of the youngest in their household', sql: "(SELECT min(extract(year FROM age(current_date, h.date_of_birth)))::int FROM contacts h WHERE h.org_id = c.org_id AND h.deleted_at IS NULL AND (h.id = c.id OR h.family_id = c.family_id))" },
  tag: { type: 'tag', label: 'Tag (by name)' },
  crmGroup: { type: 'group', label: 'CRM group (by name)' },
};

export const OPERATORS: Record<FieldType, readonly string[]> = {
  text: ['equals', 'not_equals', 'contains', 'not_contains', 'starts_with', 'ends_with', 'in', 'is_empty', 'is_not_empty'],
  enum: ['equals', 'not_equals', 'in', 'not_in', 'is_empty', 'is_not_empty'],
  number: ['equals', 'not_equals', 'greater_than', 'less_than', 'between', 'is_empty', 'is_not_empty'],
  date: ['equals', 'before', 'after', 'between', 'within_last_days', 'is_empty', 'is_not_empty'],
  boolean: ['is_true', 'is_false'],
  tag: ['includes', 'excludes'],
  group: ['includes', 'excludes'],
};

/** Bounds any number in a rule may have; each field's own check (below) is narrower. */
const RULE_NUMBER_LIMIT = 1_000_000_000;
const ruleNumber = z.number().min(-RULE_NUMBER_LIMIT).max(RULE_NUMBER_LIMIT);

export const ruleSchema = z.object({
  field: z.string().min(1).max(64),
  operator: z.string().min(1).max(32),
  value: z.union([z.string().max(500), ruleNumber, z.boolean(), z.array(z.union([z.string().max(500), ruleNumber])).max(100)]).optional(),
}).strict();

export const ruleSetSchema = z.object({
  match: z.enum(['all', 'any']).default('all'),
  rules: z.array(ruleSchema).min(1).max(50),
}).strict();

export type RuleSet = z.output<typeof ruleSetSchema>;
type Rule = RuleSet['rules'][number];

// Bounds keep every value inside Postgres int, so a rule can never fail inside the database.
const MAX_DAYS = 36_500;
const MAX_NUMBER = 1_000_000_000;

function isWholeNumber(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

export function segmentFieldCatalogue() {
  return Object.entries(SEGMENT_FIELDS).map(([field, spec]) => ({
    field, label: spec.label, type: spec.type, operators: [...OPERATORS[spec.type]], ...(spec.values ? { values: [...spec.values] } : {}),
  }));
}

class Compiler {
  readonly issues: ErrorIssue[] = [];

  constructor(readonly params: unknown[]) {}

  bind(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  fail(path: string, message: string): string {
    this.issues.push({ path, message });
    return 'false';
  }

  rule(rule: Rule, path: string): string {
    const spec = SEGMENT_FIELDS[rule.field];
    if (!spec) return this.fail(`${path}.field`, `unknown field ${quoteInput(rule.field)}; valid fields: ${Object.keys(SEGMENT_FIELDS).join(', ')}`);
    const operators = OPERATORS[spec.type];
    if (!operators.includes(rule.operator)) {
      return this.fail(`${path}.operator`, `operator ${quoteInput(rule.operator)} does not apply to ${rule.field} (${spec.type}); valid operators: ${operators.join(', ')}`);
    }
    switch (spec.type) {
      case 'text': return this.text(spec.sql!, rule, path);
      case 'enum': return this.enumeration(spec, rule, path);
      case 'number': return this.number(spec.sql!, rule, path);
      case 'date': return this.date(spec.sql!, rule, path);
      case 'boolean': return rule.operator === 'is_true' ? `${spec.sql} IS TRUE` : `${spec.sql} IS NOT TRUE`;
      case 'tag': return this.membership(rule, path, 'EXISTS (SELECT 1 FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.contact_id = c.id AND t.org_id = c.org_id AND lower(t.name) = lower(%))');
      case 'group': return this.membership(rule, path, 'EXISTS (SELECT 1 FROM crm_group_members gm JOIN crm_groups g ON g.id = gm.group_id WHERE gm.contact_id = c.id AND g.org_id = c.org_id AND lower(g.name) = lower(%))');
    }
  }

  private needString(rule: Rule, path: string): string | undefined {
    if (typeof rule.value === 'string' && rule.value.length > 0) return rule.value;
    this.fail(`${path}.value`, `${rule.operator} needs a non-empty text value`);
    return undefined;
  }

  private needList(rule: Rule, path: string): string[] | undefined {
    if (Array.isArray(rule.value) && rule.value.length > 0) return rule.value.map(String);
    this.fail(`${path}.value`, `${rule.operator} needs a non-empty list of values`);
    return undefined;
  }

  private emptiness(sql: string, operator: string): string | undefined {
    if (operator === 'is_empty') return `(${sql} IS NULL OR ${sql}::text = '')`;
    if (operator === 'is_not_empty') return `(${sql} IS NOT NULL AND ${sql}::text <> '')`;
    return undefined;
  }

  private text(sql: string, rule: Rule, path: string): string {
    const empty = this.emptiness(sql, rule.operator);
    if (empty) return empty;
    if (rule.operator === 'in') {
      const list = this.needList(rule, path);
      return list ? `lower(${sql}) = ANY(${this.bind(list.map((v) => v.toLowerCase()))}::text[])` : 'false';
    }
    const value = this.needString(rule, path);
    if (value === undefined) return 'false';
    const lowered = value.toLowerCase();
    const column = `lower(coalesce(${sql}, ''))`;
    switch (rule.operator) {
      case 'equals': return `${column} = ${this.bind(lowered)}`;
      case 'not_equals': return `${column} <> ${this.bind(lowered)}`;
      case 'contains': return `${column} LIKE ${this.bind(`%${escapeLike(lowered)}%`)}`;
      case 'not_contains': return `${column} NOT LIKE ${this.bind(`%${escapeLike(lowered)}%`)}`;
      case 'starts_with': return `${column} LIKE ${this.bind(`${escapeLike(lowered)}%`)}`;
      default: return `${column} LIKE ${this.bind(`%${escapeLike(lowered)}`)}`;
    }
  }

  private enumeration(spec: FieldSpec, rule: Rule, path: string): string {
    const sql = spec.sql!;
    const empty = this.emptiness(sql, rule.operator);
    if (empty) return empty;
    const values = rule.operator === 'in' || rule.operator === 'not_in' ? this.needList(rule, path) : [this.needString(rule, path)].filter(Boolean) as string[];
    if (!values || values.length === 0) return 'false';
    const invalid = values.filter((v) => !spec.values!.includes(v));
    if (invalid.length > 0) return this.fail(`${path}.value`, `not a valid ${rule.field}: ${invalid.join(', ')}; valid values: ${spec.values!.join(', ')}`);
    const negate = rule.operator === 'not_equals' || rule.operator === 'not_in';
    return negate ? `(${sql} IS NULL OR NOT (${sql} = ANY(${this.bind(values)}::text[])))` : `${sql} = ANY(${this.bind(values)}::text[])`;
  }

  private number(sql: string, rule: Rule, path: string): string {
    const empty = this.emptiness(sql, rule.operator);
    if (empty) return empty;
    if (rule.operator === 'between') {
      const pair = rule.value;
      if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((n) => isWholeNumber(n, -MAX_NUMBER, MAX_NUMBER))) return this.fail(`${path}.value`, 'between needs [low, high] whole numbers');
      return `${sql} BETWEEN ${this.bind(pair[0])} AND ${this.bind(pair[1])}`;
    }
    if (!isWholeNumber(rule.value, -MAX_NUMBER, MAX_NUMBER)) return this.fail(`${path}.value`, `${rule.operator} needs a whole number`);
    const op = { equals: '=', not_equals: '<>', greater_than: '>', less_than: '<' }[rule.operator as 'equals'];
    return `${sql} ${op} ${this.bind(rule.value)}`;
  }

  private isoDate(value: unknown, path: string): string | undefined {
    if (isIsoDate(value)) return value;
    this.fail(`${path}.value`, 'needs a date as YYYY-MM-DD');
    return undefined;
  }

  private date(sql: string, rule: Rule, path: string): string {
    const empty = this.emptiness(sql, rule.operator);
    if (empty) return empty;
    if (rule.operator === 'within_last_days') {
      if (!isWholeNumber(rule.value, 0, MAX_DAYS)) return this.fail(`${path}.value`, `within_last_days needs a whole number of days up to ${MAX_DAYS}`);
      return `${sql} >= current_date - ${this.bind(rule.value)}::int`;
    }
    if (rule.operator === 'between') {
      const pair = Array.isArray(rule.value) && rule.value.length === 2 ? rule.value.map((v) => this.isoDate(v, path)) : [this.isoDate(undefined, path)];
      if (pair.length !== 2 || pair.some((v) => v === undefined)) return 'false';
      return `${sql} BETWEEN ${this.bind(pair[0])}::date AND ${this.bind(pair[1])}::date`;
    }
    const value = this.isoDate(rule.value, path);
    if (!value) return 'false';
    const op = { equals: '=', before: '<', after: '>' }[rule.operator as 'equals'];
    return `${sql} ${op} ${this.bind(value)}::date`;
  }

  private membership(rule: Rule, path: string, existsTemplate: string): string {
    const value = this.needString(rule, path);
    if (value === undefined) return 'false';
    const exists = existsTemplate.replace('%', this.bind(value));
    return rule.operator === 'includes' ? exists : `NOT ${exists}`;
  }
}

/** SQL for the rule set; `params` is appended to. Throws validation_failed listing every bad rule. */
export function compileRules(ruleSet: RuleSet, params: unknown[]): string {
  const compiler = new Compiler(params);
  const parts = ruleSet.rules.map((rule, i) => `(${compiler.rule(rule, `rules.${i}`)})`);
  if (compiler.issues.length > 0) {
    throw new StewardError('validation_failed', `Invalid segment rules: ${compiler.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
      issues: compiler.issues, hint: 'people_list_segment_fields lists fields, their operators and values.',
    });
  }
  return parts.join(ruleSet.match === 'any' ? ' OR ' : ' AND ');
}
