import fs from 'node:fs';
import path from 'node:path';
import { MODULES } from '../../modules/index';

/** The README's table of module guides names every registered module that has one, and nothing else. */
describe('README module guides', () => {
  it('links the README of every module in the registry that has one', () => {
    const root = path.join(__dirname, '..', '..');
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const linked = new Set([...readme.matchAll(/\]\(modules\/([a-z]+)\/README\.md\)/g)].map((match) => match[1]));
    const withGuides = MODULES.map((module) => module.name).filter((name) => fs.existsSync(path.join(root, 'modules', name, 'README.md')));
    expect(withGuides.length).toBeGreaterThan(10);
    expect([...linked].sort()).toEqual([...withGuides].sort());
  });
});
