import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../db/config';
import { buildWorkflowBundle } from '../../worker/bundle';
import { BUNDLE_PATH_ENV, DEFAULT_TEST_BUNDLE } from '../helpers/env';

/**
 * The workflow bundle's own modules are preloaded (worker/bundle.ts): evaluated once per sandbox
 * and shared by every workflow run in it. A module that kept something of a run at module scope
 * would then hand it to the next run, which could make a replay take another path. These tests
 * hold every file of ours in the bundle to keeping no mutable state at module scope.
 */

/**
 * Reasons a module-scope binding may hold a container: each is filled, if at all, while the bundle
 * loads (before any run) and only read by runs.
 */
const SHARED_ON_PURPOSE: Record<string, string> = {
  'core/roles.ts VOLUNTEER_DENIED': 'a constant set, only read',
  'core/scopes.ts SCOPE_SET': 'a constant set (ReadonlySet), only read',
  'modules/people/workflows/outreach.ts TERMINAL': 'a constant set, only read',
  'workflows/follow-ups.ts planners': 'filled by registerFollowUps as the bundle loads, only read by runs',
};

const CONTAINERS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array', 'Object']);

/**
 * Module-scope bindings that could carry state from one run to the next: every `let` or `var`, and
 * every `const` bound to a new container (new Map/Set/WeakMap/WeakSet/Array/Object) or an empty
 * array or object literal (there only to be filled).
 */
function moduleScopeState(file: string, source: string): string[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: string[] = [];
  for (const statement of sourceFile.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const { declarationList } = statement;
    const isConst = (declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const declaration of declarationList.declarations) {
      const name = declaration.name.getText(sourceFile);
      const init = declaration.initializer;
      const container = init !== undefined && (
        (ts.isNewExpression(init) && ts.isIdentifier(init.expression) && CONTAINERS.has(init.expression.text))
        || (ts.isArrayLiteralExpression(init) && init.elements.length === 0)
        || (ts.isObjectLiteralExpression(init) && init.properties.length === 0));
      if (!isConst || container) found.push(`${file} ${name}`);
    }
  }
  return found;
}

/** Our files in a built bundle, from webpack's module markers (the generated entry aside: imports and registrations only). */
function ownFilesOf(bundle: string): string[] {
  const files = [...bundle.matchAll(/^\/\*\*\*\/ "\.\/([^"]+\.ts)"$/gm)].map((match) => match[1]);
  return [...new Set(files)].filter((file) => !file.startsWith('dist/')).sort();
}

let bundle: string;

beforeAll(async () => {
  const built = process.env[BUNDLE_PATH_ENV] ?? await buildWorkflowBundle(DEFAULT_TEST_BUNDLE);
  bundle = fs.readFileSync(built, 'utf8');
}, 120_000);

describe('the workflow bundle, preloaded', () => {
  it('preloads its generated entry, so the modules it imports are evaluated once per sandbox', () => {
    expect(bundle).toMatch(/function preloadModules\(\) \{\s*__webpack_require__\([^)]*"\.\/dist\/workflow-entries\/[^"]+\.entry\.ts"\);\s*\}/);
  });

  it('holds the kernel\'s and the modules\' workflow files, each keeping no run\'s state at module scope', () => {
    const files = ownFilesOf(bundle);
    expect(files).toEqual(expect.arrayContaining(['workflows/tool-call.ts', 'core/tool-plan.ts', 'workflows/follow-ups.ts']));
    const state = files.flatMap((file) => moduleScopeState(file, fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8')));
    expect(state.filter((binding) => !(binding in SHARED_ON_PURPOSE))).toEqual([]);
    // An entry for a binding that is gone would excuse the next one of the same name unseen.
    expect(Object.keys(SHARED_ON_PURPOSE).filter((binding) => !state.includes(binding))).toEqual([]);
  });

  it('finds module-scope lets, vars and empty containers, and passes constants and functions', () => {
    const source = [
      'let calls = 0;',
      'var seen;',
      'const byId = new Map<string, number>();',
      'const queue: string[] = [];',
      'const memo = {};',
      "const RETRY = { maximumAttempts: 3 };",
      "const NAMES = ['a', 'b'];",
      'export function run() { let local = 1; const inner = new Map(); return local + inner.size + calls; }',
    ].join('\n');
    expect(moduleScopeState('x.ts', source)).toEqual(['x.ts calls', 'x.ts seen', 'x.ts byId', 'x.ts queue', 'x.ts memo']);
  });
});
