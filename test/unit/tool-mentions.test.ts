import fs from 'node:fs';
import path from 'node:path';
import { MODULES } from '../../modules';
import { allModules, allTools } from '../../modules/catalogue';
import { metricCatalogue } from '../../modules/metrics';
import { inputSchemaOf, outputSchemaOf } from '../../modules/schema';
import { sizeInWords } from '../../core/sizes';
import { METERED_FEATURES } from '../../core/billing';

/**
 * Every tool a description, hint or error names exists: an agent told to call a tool that is not
 * there is stuck (issue 23 item 13). Metric names share the module prefix and count as names too.
 */
const ROOT = path.resolve(__dirname, '../..');
const tools = allTools();
// Metered feature names are the spec's and may share a module's prefix (runsheet_access_seats).
const known = new Set<string>([...tools.map((tool) => tool.name), ...metricCatalogue(MODULES).available.keys(), ...METERED_FEATURES]);
const mention = new RegExp(`\\b(?:${allModules().join('|')})_[a-z0-9_]*[a-z0-9]\\b`, 'g');

function unknownIn(text: string): string[] {
  return [...text.matchAll(mention)].map((match) => match[0]).filter((name) => !known.has(name));
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', '__toolsnaps__', 'migrations'].includes(entry.name) ? [] : sourceFiles(full);
    return /\.m?ts$/.test(entry.name) ? [full] : [];
  });
}

/** Lines that speak to a caller: hints, errors, descriptions. SQL lines name tables, which share the prefix. */
const SPEAKS = /hint|describe\(|description|StewardError|message|invalid\(|notFound\(|refused\(/i;
const SQL = /\b(SELECT|FROM|JOIN|INSERT|UPDATE|DELETE|tableName|REFERENCES)\b/;

describe('tool names that the catalogue and the code mention', () => {
  it('every name in a tool\'s description and schemas is a tool (or a metric)', () => {
    const wrong = tools.flatMap((tool) => unknownIn([tool.description, JSON.stringify(inputSchemaOf(tool)), JSON.stringify(outputSchemaOf(tool))].join('\n'))
      .map((name) => `${tool.name} mentions ${name}`));
    expect(wrong).toEqual([]);
  });

  it('every name in a hint, error or description in the source is a tool (or a metric)', () => {
    const files = ['modules', 'core', 'api', 'activities', 'workflows'].flatMap((dir) => sourceFiles(path.join(ROOT, dir)));
    expect(files.length).toBeGreaterThan(100);
    const wrong = files.flatMap((file) => fs.readFileSync(file, 'utf8').split('\n').flatMap((line, index) => (
      SPEAKS.test(line) && !SQL.test(line) ? unknownIn(line).map((name) => `${path.relative(ROOT, file)}:${index + 1} mentions ${name}`) : []
    )));
    expect(wrong).toEqual([]);
  });

  it('notices a name that does not exist', () => {
    expect(unknownIn('Record a cleared check with people_record_safeguarding_check.')).toEqual(['people_record_safeguarding_check']);
    expect(unknownIn('Use people_create_safeguarding_check.')).toEqual([]);
  });
});

describe('sizes in refusals', () => {
  it('reads as a person says them', () => {
    expect(sizeInWords(64 * 1024)).toBe('64 KB');
    expect(sizeInWords(25 * 1024 * 1024)).toBe('25 MB');
    expect(sizeInWords(1_500_000)).toBe('1.5 MB');
    expect(sizeInWords(65_537)).toBe('65.5 KB');
    expect(sizeInWords(900)).toBe('900 bytes');
  });
});
