import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { col, fn, Op, where } from 'sequelize';
import { sequelize } from '../../db/sequelize';
import { Tag } from '../../modules/people/models';
import { checkBoundaries, checkCycles, checkSqlLiterals, checkTableOwnership, placeholdersInQuotedLiterals, tablesInSql } from '../../scripts/check-boundaries';

describe('lint: data layer rules', () => {
  it('finds $n inside quoted SQL literals only', () => {
    expect(placeholdersInQuotedLiterals("SELECT * FROM t WHERE a = $1 AND b = 'costs $2'")).toEqual(['$2']);
    expect(placeholdersInQuotedLiterals("SELECT 'it''s $10', $3")).toEqual(['$10']);
    expect(placeholdersInQuotedLiterals("SELECT $1::text, '\\\\D', 'DMY'")).toEqual([]);
  });

  it('flags a module importing another module\'s models, and SQL with a placeholder in a literal', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-lint-'));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
      };
      write('modules/people/models/contacts.ts', 'export const Contact = 1;\n');
      write('modules/people/tags.ts', "import { Contact } from './models/contacts';\nexport const own = Contact;\n");
      write('modules/giving/gifts.ts', "import { Contact } from '../people/models/contacts';\nimport { own } from '../people/tags';\nexport const x = [Contact, own];\n");
      write('modules/giving/report.ts', "export const sql = `SELECT id FROM gifts WHERE note = '$1' AND org_id = $2`;\n");
      const imports = checkBoundaries(root).violations;
      // Line 2 reaches a file of people that is not its api.ts (see the peers test below).
      expect(imports.map((v) => [v.file, v.line])).toEqual([['modules/giving/gifts.ts', 1], ['modules/giving/gifts.ts', 2]]);
      const sql = checkSqlLiterals(root).violations;
      expect(sql.map((v) => [v.file, v.line, v.specifier])).toEqual([['modules/giving/report.ts', 1, '$1']]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('lets a module reach another only through its api.ts, and only one it names in uses', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-lint-'));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
      };
      write('modules/people/contacts.ts', 'export const listContacts = 1;\n');
      write('modules/people/api.ts', "export { listContacts } from './contacts';\n");
      write('modules/people/index.ts', "export default { name: 'people', uses: ['platform'] };\n");
      write('modules/giving/index.ts', "export default { name: 'giving', uses: ['platform', 'people'] };\n");
      write('modules/giving/gifts.ts', [
        "import { listContacts } from '../people/api';",
        "import { listContacts as direct } from '../people/contacts';",
        "import type { x } from '../people/contacts';",
        'export const y = [listContacts, direct];',
      ].join('\n'));
      write('modules/templates/index.ts', "export default { name: 'templates', uses: ['platform'] };\n");
      write('modules/templates/store.ts', "import { listContacts } from '../people/api';\nexport const z = listContacts;\n");
      const found = checkBoundaries(root).violations.map((v) => [v.file, v.line, v.message]);
      expect(found).toEqual([
        ['modules/giving/gifts.ts', 2, expect.stringContaining('only through modules/people/api')],
        ['modules/giving/gifts.ts', 3, expect.stringContaining('only through modules/people/api')],
        ['modules/templates/store.ts', 1, expect.stringContaining("does not name 'people' in uses")],
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('finds import cycles at run time, leaving out import type', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-lint-'));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
      };
      write('db/a.ts', "import { b } from './b';\nexport const a = b;\n");
      write('db/b.ts', "import { c } from '../core/c';\nexport const b = c;\n");
      write('core/c.ts', "import type { a } from '../db/a';\nexport const c = 1;\n");
      expect(checkCycles(root, new Set()).violations).toEqual([]);
      write('core/c.ts', "import { a } from '../db/a';\nexport const c = () => a;\n");
      expect(checkCycles(root, new Set()).violations.map((v) => v.message)).toEqual([expect.stringContaining('core/c.ts ⇄ db/a.ts ⇄ db/b.ts')]);
      expect(checkCycles(root, new Set(['core/c.ts ⇄ db/a.ts ⇄ db/b.ts'])).violations).toEqual([]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('keeps every module\'s workflows deterministic as the kernel\'s: packages, built-ins and run-time imports outside core/ and its own folder are flagged', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-lint-'));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
      };
      write('core/ids.ts', 'export const id = 1;\n');
      write('modules/giving/services.ts', 'export const total = 1;\n');
      write('modules/giving/activities/run.ts', 'export const createRun = () => ({});\n');
      write('modules/giving/workflows/ids.ts', 'export const runId = 1;\n');
      write('modules/giving/workflows/run.ts', [
        "import { proxyActivities } from '@temporalio/workflow';",
        "import type { createRun } from '../activities/run';",
        "import { id } from '../../../core/ids';",
        "import { runId } from './ids';",
        "import { total } from '../services';",
        "import fs from 'node:fs';",
        "import { DateTime } from 'luxon';",
        'export const all = [proxyActivities, id, runId, total, fs, DateTime];',
        '',
      ].join('\n'));
      write('test/kit/demo/workflows/run.ts', "import { total } from '../../../../modules/giving/services';\nexport const x = total;\n");
      // Outside a workflows folder the same imports are a module's ordinary business.
      write('modules/giving/report.ts', "import { total } from './services';\nimport { DateTime } from 'luxon';\nexport const y = [total, DateTime];\n");
      const flagged = checkBoundaries(root).violations.map((v) => [v.file, v.line]);
      expect(flagged).toEqual([
        ['modules/giving/workflows/run.ts', 5], ['modules/giving/workflows/run.ts', 6], ['modules/giving/workflows/run.ts', 7],
        ['test/kit/demo/workflows/run.ts', 1],
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('keeps the kernel beneath the modules: the kit\'s own files, never a module\'s', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-lint-'));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
      };
      write('modules/registry.ts', 'export const registeredModules = () => [];\n');
      write('modules/platform/orgs.ts', 'export const getOrg = 1;\n');
      write('core/ids.ts', 'export const id = 1;\n');
      write('kernel/billing.ts', [
        "import { registeredModules } from '../modules/registry';",
        "import { id } from '../core/ids';",
        "import { getOrg } from '../modules/platform/orgs';",
        'export const x = [registeredModules, id, getOrg];',
        '',
      ].join('\n'));
      expect(checkBoundaries(root).violations.map((v) => [v.file, v.line])).toEqual([['kernel/billing.ts', 3]]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('flags SQL in one module that names another module\'s table, but not views, migrations or its own tables', () => {
    expect(tablesInSql('SELECT a FROM x JOIN y ON true LEFT JOIN z ON true; INSERT INTO w VALUES (1); UPDATE v SET a = 1')).toEqual(['x', 'y', 'z', 'w', 'v']);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-lint-'));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
      };
      write('modules/people/models/contacts.ts', "Contact.init({}, { sequelize, tableName: 'contacts' });\n");
      write('modules/giving/models/gifts.ts', "Gift.init({}, { sequelize, tableName: 'giving_gifts' });\n");
      write('modules/people/list.ts', "export const own = 'SELECT id FROM contacts WHERE org_id = $1';\n");
      write('modules/giving/list.ts', [
        "export const mine = 'SELECT g.id FROM giving_gifts g JOIN people_directory c ON c.id = g.contact_id';",
        "export const theirs = `SELECT g.id FROM giving_gifts g",
        "  LEFT JOIN contacts c ON c.id = g.contact_id`;",
      ].join('\n'));
      write('modules/giving/migrations/2026.01.01T00.00.00.gifts.ts', "export const up = 'CREATE TABLE giving_gifts (contact_id uuid REFERENCES contacts(id)); INSERT INTO giving_gifts SELECT id FROM contacts';\n");
      const found = checkTableOwnership(root).violations;
      expect(found.map((v) => [v.file, v.line, v.specifier])).toEqual([['modules/giving/list.ts', 2, 'contacts']]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('Sequelize 6 still mangles $ inside fn() arguments, so caller values stay out of fn() (see db/sequelize.ts)', () => {
    const generator = (sequelize.getQueryInterface() as unknown as { queryGenerator: { selectQuery(table: string, options: object, model: unknown): string } }).queryGenerator;
    const sql = generator.selectQuery('tags', { attributes: ['id'], where: { [Op.and]: [where(fn('lower', col('name')), fn('lower', 'costs $1'))] } }, Tag);
    // If this starts failing, Sequelize fixed it and name lookups could move to finders.
    expect(sql).toContain("lower('costs $$1')");
    const plain = generator.selectQuery('tags', { attributes: ['id'], where: { name: 'costs $1' } }, Tag);
    expect(plain).toContain("'costs $1'");
  });
});
