import { StewardError } from '../../../core/errors';
import { createOrganisation } from '../../platform/orgs';
import { createContact } from '../contacts';
import { addContactTags } from '../tags';
import { addGroupMember, createGroup } from '../crm-groups';
import { previewRules } from '../segments';
import { compileRules, type RuleSet } from '../segment-rules';
import type { OrgSettings } from '../../tool';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/database';

/** Segment rules compiled and run against real Postgres, operator by operator. */
describe('segment rules', () => {
  let db: TestDatabase;
  let org: OrgSettings;
  let other: OrgSettings;
  const ids: Record<string, string> = {};

  const names = async (rules: RuleSet['rules'], match: RuleSet['match'] = 'all') =>
    (await previewRules(db.pool, org.id, { match, rules }, 100)).sample.map((c) => c.displayName).sort();

  beforeAll(async () => {
    db = await createTestDatabase();
    org = await createOrganisation(db.pool, { name: 'Rules Church' });
    other = await createOrganisation(db.pool, { name: 'Other Church' });
    const people = [
      { key: 'amy', firstName: 'Amy', lastName: "O'Brien", email: 'amy@example.org', phone: '07700 900100', gender: 'female', status: 'subscribed', membershipStatus: 'member', dateOfBirth: '1950-06-01', whatsappConsent: true, addressCity: 'Leeds', membershipDate: '2020-01-01' },
      { key: 'bob', firstName: 'Bob', lastName: 'Baker', email: 'bob@bakery.co.uk', gender: 'male', status: 'unsubscribed', membershipStatus: 'first_time_visitor', dateOfBirth: '2000-02-02', addressCity: 'York' },
      { key: 'cat', firstName: 'Cat', lastName: '100%_Real', gender: 'female', status: 'non_subscribed', dateOfBirth: '1990-12-12' },
    ];
    for (const { key, ...fields } of people) ids[key] = (await createContact(db.pool, org, fields)).id;
    await createContact(db.pool, other, { firstName: 'Amy', lastName: 'Elsewhere', email: 'amy@other.org', membershipStatus: 'member' });
    await addContactTags(db.pool, org.id, ids.amy, ['Choir']);
    const group = await createGroup(db.pool, org.id, { name: 'Stewards' });
    await addGroupMember(db.pool, org.id, { groupId: group.id }, { contactId: ids.bob });
  });

  afterAll(async () => {
    await db?.drop();
  });

  it.each([
    ['text equals (case-insensitive)', [{ field: 'firstName', operator: 'equals', value: 'amy' }], ["Amy O'Brien"]],
    ['text not_equals', [{ field: 'firstName', operator: 'not_equals', value: 'Amy' }], ['Bob Baker', 'Cat 100%_Real']],
    ['text contains', [{ field: 'email', operator: 'contains', value: 'bakery' }], ['Bob Baker']],
    ['text not_contains', [{ field: 'email', operator: 'not_contains', value: 'example' }], ['Bob Baker', 'Cat 100%_Real']],
    ['text starts_with', [{ field: 'lastName', operator: 'starts_with', value: 'ba' }], ['Bob Baker']],
    ['text ends_with', [{ field: 'email', operator: 'ends_with', value: '.co.uk' }], ['Bob Baker']],
    ['text in', [{ field: 'addressCity', operator: 'in', value: ['leeds', 'York'] }], ["Amy O'Brien", 'Bob Baker']],
    ['text is_empty', [{ field: 'email', operator: 'is_empty' }], ['Cat 100%_Real']],
    ['text is_not_empty', [{ field: 'phone', operator: 'is_not_empty' }], ["Amy O'Brien"]],
    ['enum equals', [{ field: 'status', operator: 'equals', value: 'unsubscribed' }], ['Bob Baker']],
    ['enum not_equals', [{ field: 'membershipStatus', operator: 'not_equals', value: 'member' }], ['Bob Baker', 'Cat 100%_Real']],
    ['enum in', [{ field: 'membershipStatus', operator: 'in', value: ['member', 'first_time_visitor'] }], ["Amy O'Brien", 'Bob Baker']],
    ['enum not_in', [{ field: 'gender', operator: 'not_in', value: ['female'] }], ['Bob Baker']],
    ['enum is_empty', [{ field: 'membershipStatus', operator: 'is_empty' }], ['Cat 100%_Real']],
    ['enum is_not_empty', [{ field: 'membershipStatus', operator: 'is_not_empty' }], ["Amy O'Brien", 'Bob Baker']],
    ['number greater_than', [{ field: 'age', operator: 'greater_than', value: 60 }], ["Amy O'Brien"]],
    ['number less_than', [{ field: 'age', operator: 'less_than', value: 30 }], ['Bob Baker']],
    ['number between', [{ field: 'age', operator: 'between', value: [20, 40] }], ['Bob Baker', 'Cat 100%_Real']],
    ['number equals', [{ field: 'age', operator: 'equals', value: new Date().getFullYear() - 2000 - (new Date() < new Date(new Date().getFullYear(), 1, 2) ? 1 : 0) }], ['Bob Baker']],
    ['number not_equals', [{ field: 'age', operator: 'not_equals', value: 0 }], ["Amy O'Brien", 'Bob Baker', 'Cat 100%_Real']],
    ['number is_empty', [{ field: 'age', operator: 'is_empty' }], []],
    ['number is_not_empty', [{ field: 'age', operator: 'is_not_empty' }], ["Amy O'Brien", 'Bob Baker', 'Cat 100%_Real']],
    ['date before', [{ field: 'dateOfBirth', operator: 'before', value: '1960-01-01' }], ["Amy O'Brien"]],
    ['date after', [{ field: 'dateOfBirth', operator: 'after', value: '1995-01-01' }], ['Bob Baker']],
    ['date equals', [{ field: 'dateOfBirth', operator: 'equals', value: '1990-12-12' }], ['Cat 100%_Real']],
    ['date between', [{ field: 'dateOfBirth', operator: 'between', value: ['1949-01-01', '1991-01-01'] }], ["Amy O'Brien", 'Cat 100%_Real']],
    ['date within_last_days', [{ field: 'createdAt', operator: 'within_last_days', value: 1 }], ["Amy O'Brien", 'Bob Baker', 'Cat 100%_Real']],
    ['date is_empty', [{ field: 'membershipDate', operator: 'is_empty' }], ['Bob Baker', 'Cat 100%_Real']],
    ['date is_not_empty', [{ field: 'membershipDate', operator: 'is_not_empty' }], ["Amy O'Brien"]],
    ['boolean is_true', [{ field: 'whatsappConsent', operator: 'is_true' }], ["Amy O'Brien"]],
    ['boolean is_false', [{ field: 'whatsappConsent', operator: 'is_false' }], ['Bob Baker', 'Cat 100%_Real']],
    ['tag includes', [{ field: 'tag', operator: 'includes', value: 'choir' }], ["Amy O'Brien"]],
    ['tag excludes', [{ field: 'tag', operator: 'excludes', value: 'Choir' }], ['Bob Baker', 'Cat 100%_Real']],
    ['group includes', [{ field: 'crmGroup', operator: 'includes', value: 'Stewards' }], ['Bob Baker']],
    ['group excludes', [{ field: 'crmGroup', operator: 'excludes', value: 'stewards' }], ["Amy O'Brien", 'Cat 100%_Real']],
  ] as Array<[string, RuleSet['rules'], string[]]>)('%s', async (_label, rules, expected) => {
    expect(await names(rules)).toEqual(expected);
  });

  it('combines rules with all (AND) and any (OR)', async () => {
    const rules: RuleSet['rules'] = [
      { field: 'gender', operator: 'equals', value: 'female' },
      { field: 'addressCity', operator: 'equals', value: 'York' },
    ];
    expect(await names(rules, 'all')).toEqual([]);
    expect(await names(rules, 'any')).toEqual(["Amy O'Brien", 'Bob Baker', 'Cat 100%_Real']);
  });

  it('never sees another organisation', async () => {
    expect(await names([{ field: 'firstName', operator: 'equals', value: 'Amy' }])).toEqual(["Amy O'Brien"]);
  });

  it.each([
    "x' OR '1'='1",
    "'; DROP TABLE contacts; --",
    "O'Brien",
    '%',
    '_',
    '\\',
  ])('keeps %p as data', async (value) => {
    const matched = await names([{ field: 'lastName', operator: 'contains', value }]);
    const expected = ["Amy O'Brien", 'Bob Baker', 'Cat 100%_Real'].filter((n) => n.split(' ').slice(1).join(' ').toLowerCase().includes(value.toLowerCase()));
    expect(matched).toEqual(expected);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM contacts WHERE org_id = $1', [org.id]);
    expect(rows[0].n).toBe(3);
  });

  it('puts every value in a bind parameter, never in the SQL text', () => {
    const params: unknown[] = [];
    const sql = compileRules({ match: 'all', rules: [{ field: 'email', operator: 'equals', value: "evil'); --" }, { field: 'tag', operator: 'includes', value: 'x"y' }] }, params);
    expect(sql).not.toContain('evil');
    expect(sql).not.toContain('x"y');
    expect(params).toEqual(["evil'); --", 'x"y']);
  });

  it('refuses unknown fields and operators, listing the valid ones', () => {
    let error: StewardError | undefined;
    try {
      compileRules({ match: 'all', rules: [{ field: 'shoeSize', operator: 'equals', value: 9 }, { field: 'age', operator: 'contains', value: 'x' }, { field: 'status', operator: 'equals', value: 'vip' }] }, []);
    } catch (e) {
      error = e as StewardError;
    }
    expect(error?.code).toBe('validation_failed');
    expect(error?.issues?.map((i) => i.path)).toEqual(['rules.0.field', 'rules.1.operator', 'rules.2.value']);
    expect(error?.issues?.[0].message).toContain('valid fields: firstName');
    expect(error?.issues?.[1].message).toContain('valid operators: equals, not_equals, greater_than');
    expect(error?.issues?.[2].message).toContain('valid values: subscribed');
  });

  it('refuses values of the wrong shape for an operator', () => {
    expect(() => compileRules({ match: 'all', rules: [{ field: 'age', operator: 'between', value: [1] }] }, [])).toThrow('between needs [low, high] whole numbers');
    expect(() => compileRules({ match: 'all', rules: [{ field: 'age', operator: 'greater_than', value: 1.5 }] }, [])).toThrow('needs a whole number');
    expect(() => compileRules({ match: 'all', rules: [{ field: 'createdAt', operator: 'within_last_days', value: 1e12 }] }, [])).toThrow('whole number of days');
    expect(() => compileRules({ match: 'all', rules: [{ field: 'dateOfBirth', operator: 'before', value: '2024-02-31' }] }, [])).toThrow('YYYY-MM-DD');
    expect(() => compileRules({ match: 'all', rules: [{ field: 'dateOfBirth', operator: 'after', value: '01/02/2000' }] }, [])).toThrow('YYYY-MM-DD');
    expect(() => compileRules({ match: 'all', rules: [{ field: 'email', operator: 'in', value: 'a' }] }, [])).toThrow('non-empty list');
  });
});
