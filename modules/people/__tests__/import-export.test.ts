import { Harness, type TestOrg } from '../../../test/helpers/harness';

function csvOf(rows: string[][]): string {
  return rows.map((row) => row.map((cell) => (/[",\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(',')).join('\n');
}

describe('contact import and export', () => {
  let harness: Harness;
  let org: TestOrg;

  const contactCount = async () => (await harness.pool.query('SELECT count(*)::int AS n FROM contacts WHERE org_id = $1', [org.orgId])).rows[0].n as number;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ country: 'GB' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('refuses a 200-row CSV with 5 bad rows: 5 row errors with row numbers, nothing written', async () => {
    const header = ['First Name', 'Surname', 'Email', 'Date of Birth', 'Tags'];
    const rows = Array.from({ length: 200 }, (_, i) => [`Person${i}`, `Family${i}`, `p${i}@example.org`, '14/02/1990', 'Imported']);
    rows[9][2] = 'not-an-email';            // spreadsheet row 11
    rows[49][3] = '30/02/1990';             // row 51: no 30 February
    rows[99] = ['Only', '', '', '', ''];    // row 101: neither email nor full name
    rows[149][3] = '1990-13-01';            // row 151: month 13
    rows[199][2] = 'also bad';              // row 201
    const csv = csvOf([header, ...rows]);

    const preview = await harness.call(org.apiKey, 'people_import_contacts', { csv });
    expect(preview).toMatchObject({ committed: false, rows: 200, toCreate: 195, toSkip: 0 });
    expect(preview.errors.map((e: any) => [e.row, e.field])).toEqual([[11, 'email'], [51, 'dateOfBirth'], [101, 'email'], [151, 'dateOfBirth'], [201, 'email']]);

    const commit = await harness.invoke(org.apiKey, 'people_import_contacts', { csv, mode: 'commit' });
    expect(commit.status).toBe(400);
    expect(commit.body.error?.code).toBe('validation_failed');
    expect(commit.body.error?.details.rowErrors).toHaveLength(5);
    expect(commit.body.error?.issues?.map((i) => i.path)).toEqual(['row 11.email', 'row 51.dateOfBirth', 'row 101.email', 'row 151.dateOfBirth', 'row 201.email']);
    expect(await contactCount()).toBe(0);
    const tags = await harness.pool.query('SELECT count(*)::int AS n FROM tags WHERE org_id = $1', [org.orgId]);
    expect(tags.rows[0].n).toBe(0);
  });

  it('commits a clean CSV, reads UK dates day-first, tags rows, and skips or updates duplicates', async () => {
    const csv = csvOf([
      ['First Name', 'Last Name', 'Email', 'DOB', 'Tags', 'Favourite colour'],
      ['Mary', 'Jones', 'mary@example.org', '03/04/1975', 'Choir;Youth', 'blue'],
      ['Tom', 'Jones', 'tom@example.org', '', '', ''],
      ['Mary', 'Jones', 'MARY@example.org', '', '', ''],
    ]);
    const result = await harness.call(org.apiKey, 'people_import_contacts', { csv, mode: 'commit' });
    expect(result).toMatchObject({ committed: true, toCreate: 2, toSkip: 1, ignoredColumns: ['Favourite colour'] });
    const found = await harness.call(org.apiKey, 'people_search_contacts', { query: 'mary@example.org' });
    const mary = await harness.call(org.apiKey, 'people_get_contact', { contactId: found.contacts[0].id });
    expect(mary.contact).toMatchObject({ dateOfBirth: '1975-04-03', tags: ['Choir', 'Youth'] });

    const again = await harness.call(org.apiKey, 'people_import_contacts', {
      csv: csvOf([['Email', 'Phone'], ['tom@example.org', '07700 900555']]), mode: 'commit', onDuplicate: 'update',
    });
    expect(again).toMatchObject({ toUpdate: 1, toCreate: 0 });
    const tom = await harness.call(org.apiKey, 'people_search_contacts', { query: 'tom@example.org' });
    expect(tom.contacts[0].phone).toBe('07700 900555');
  });

  it('refuses a malformed CSV and a header-only CSV', async () => {
    const malformed = await harness.invoke(org.apiKey, 'people_import_contacts', { csv: 'a,b\n"unclosed,2' });
    expect(malformed.body.error?.code).toBe('validation_failed');
    const empty = await harness.invoke(org.apiKey, 'people_import_contacts', { csv: 'First Name,Email\n' });
    expect(empty.body.error?.message).toContain('at least one data row');
  });

  it('exports visible fields as CSV, never notes, and defuses spreadsheet formulas', async () => {
    const created = await harness.call(org.apiKey, 'people_create_contact', { firstName: '=HYPERLINK("x")', lastName: 'Evil', email: 'evil@example.org' });
    await harness.call(org.apiKey, 'people_add_note', { contactId: created.contact.id, content: 'Confidential pastoral detail', privacy: 'private' });
    const result = await harness.call(org.apiKey, 'people_export_contacts', {});
    const lines = result.csv.trim().split('\n');
    expect(lines[0].split(',')).toContain('email');
    expect(lines[0]).not.toMatch(/note/i);
    expect(result.csv).not.toContain('Confidential pastoral detail');
    expect(result.csv).toContain(`"'=HYPERLINK(""x"")"`);
    expect(result.rowCount).toBe(lines.length - 1);
  });

  it('exports large sets a page at a time', async () => {
    const big = await harness.createOrg({ planCode: 'enterprise' });
    const rows = Array.from({ length: 2100 }, (_, i) => [`First${i}`, `Last${i}`, `bulk${i}@example.org`]);
    const imported = await harness.call(big.apiKey, 'people_import_contacts', { csv: csvOf([['First Name', 'Last Name', 'Email'], ...rows]), mode: 'commit' });
    expect(imported.toCreate).toBe(2100);
    const first = await harness.call(big.apiKey, 'people_export_contacts', { columns: ['email'] });
    expect(first).toMatchObject({ rowCount: 2000, nextOffset: 2000 });
    const second = await harness.call(big.apiKey, 'people_export_contacts', { columns: ['email'], offset: first.nextOffset });
    expect(second).toMatchObject({ rowCount: 100, nextOffset: null });
    const emails = new Set([...first.csv.trim().split('\n').slice(1), ...second.csv.trim().split('\n').slice(1)]);
    expect(emails.size).toBe(2100);
  });

  it('refuses a CSV larger than the import limit with a clear error', async () => {
    const { status, body } = await harness.invoke(org.apiKey, 'people_import_contacts', { csv: 'Email\n' + 'x'.repeat(900_001) });
    expect(status).toBe(400);
    expect(body.error?.issues?.[0].path).toBe('csv');
  });
});
