/**
 * `npm run lint:boundaries`: enforces the import rules of docs/design.md ("Layout") by
 * reading every source file's imports with the TypeScript parser.
 *
 *   workflows/  only @temporalio/workflow, @temporalio/common, core/, its own files,
 *               and `import type` from activities/ (the bundle must stay deterministic)
 *   core/       nothing internal outside core/; no Node built-ins (it is pure and
 *               ends up in the workflow bundle); external libraries are fine
 *   db/         nothing internal outside db/ and core/
 *   kernel/     core/, db/, itself and the module kit's files (modules/*.ts), never a module folder
 *   modules/    never the outer layers (activities/, workflows/, worker/, api/, scripts/, test/, bench/)
 *   api/        never activities/ (the API starts workflows; it does not run their steps)
 *   modules/<x> never modules/<y>/models (a module's tables are reached through its services)
 *   modules/<x> modules/<y> only as modules/<y>/api, and only when x's definition names y in `uses`
 *
 * and, in modules/<x> outside its migrations, no SQL that names a table modules/<y> declares a
 * model for (join the view a module publishes, such as people_directory, or call its services);
 * and one rule on SQL text in every source file: no `$<digit>` inside a single-quoted SQL literal.
 * Sequelize reads `$n` as a bind placeholder even there and fails the query at run time
 * ("Named bind parameter "$5" has no value"), or quietly binds the wrong value.
 *
 *
 * and no import cycle in the runtime import graph of the source folders (CYCLE_FOLDERS).
 *
 * Exits 1 and lists every violation as file:line when a rule is broken.
 */
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

export interface ImportRef {
  specifier: string;
  line: number;
  /** Erased at compile time: `import type …`, `export type … from`, `import('x').T` in a type. */
  typeOnly: boolean;
}

export interface Violation {
  file: string;
  line: number;
  specifier: string;
  message: string;
}

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs'];
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Every module specifier a file imports, re-exports, requires or imports dynamically. */
export function importsOf(fileName: string, text: string): ImportRef[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const refs: ImportRef[] = [];
  const add = (node: ts.Node, specifier: ts.Expression | undefined, typeOnly: boolean) => {
    if (!specifier || !ts.isStringLiteralLike(specifier)) return;
    refs.push({ specifier: specifier.text, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      // Only the statement-level `import type` counts as erased; `import { type X }` may keep a side-effect import.
      add(node, node.moduleSpecifier, Boolean(node.importClause?.isTypeOnly));
    } else if (ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal as ts.Expression, true);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isDynamicImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      const isResolve = ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'require' && callee.name.text === 'resolve';
      if ((isDynamicImport || isRequire || isResolve) && node.arguments.length > 0) add(node, node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return refs;
}

type Target =
  | { kind: 'internal'; folder: string; relative: string }
  | { kind: 'builtin'; name: string }
  | { kind: 'package'; name: string };

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function classify(root: string, file: string, specifier: string): Target {
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    const resolved = path.resolve(path.dirname(file), specifier);
    const relative = path.relative(root, resolved).split(path.sep).join('/');
    const folder = relative.startsWith('..') ? '(outside the project)' : relative.split('/')[0];
    return { kind: 'internal', folder, relative };
  }
  if (NODE_BUILTINS.has(specifier) || NODE_BUILTINS.has(specifier.split('/')[0])) return { kind: 'builtin', name: specifier };
  return { kind: 'package', name: packageName(specifier) };
}

interface Rule {
  folder: string;
  /** Only the files of `folder` this accepts (project-relative path); all of them without it. */
  files?: (relative: string) => boolean;
  /** `file` is the importing file, relative to `root` with `/` separators. */
  check(target: Target, ref: ImportRef, file: string, root: string): string | undefined;
}

/** The module a project-relative path belongs to, if it is inside modules/<name>/. */
function moduleOf(relative: string): string | undefined {
  return /^modules\/([^/]+)\//.exec(relative)?.[1];
}

/** The modules a module's definition names in `uses: [...]` (read from its index.ts as text: the lint loads no module). */
export function usesOf(root: string, module: string): Set<string> {
  const index = path.join(root, 'modules', module, 'index.ts');
  const text = fs.existsSync(index) ? fs.readFileSync(index, 'utf8') : '';
  const list = /\buses:\s*\[([^\]]*)\]/.exec(text)?.[1] ?? '';
  return new Set([...list.matchAll(/'([a-z0-9_]+)'/g)].map((match) => match[1]!));
}

/**
 * modules/<x> reaches modules/<y> only through modules/<y>/api.ts, and only when x's definition
 * names y in `uses`: the registry refuses a cycle among `uses`, so this keeps imports one-way too.
 */
function peerImportProblem(root: string, file: string, targetRelative: string): string | undefined {
  const from = moduleOf(file);
  const to = moduleOf(targetRelative);
  if (!from || !to || from === to) return undefined;
  if (targetRelative !== `modules/${to}/api`) {
    return `modules/${from}/ may import the ${to} module only through modules/${to}/api (${targetRelative}); export what it needs there`;
  }
  if (!usesOf(root, from).has(to)) return `modules/${from}/ imports modules/${to}/api but its definition does not name '${to}' in uses`;
  return undefined;
}

const WORKFLOW_PACKAGES = new Set(['@temporalio/workflow', '@temporalio/common']);
const OUTER_LAYERS = new Set(['activities', 'workflows', 'worker', 'api', 'scripts', 'bin', 'test', 'bench']);

/** A module's workflow code: `modules/<m>/workflows/` (and the kit's demo module under test/kit/). */
const MODULE_WORKFLOW_FILE = /^(modules|test\/kit)\/[^/]+\/workflows\//;

/**
 * A module's workflows are bundled and replayed like the kernel's, so the same determinism holds:
 * only the Temporal workflow packages, core/, and the module's own workflows folder at run time;
 * anything else only as `import type` (its activities, the kernel's contracts), which is erased.
 */
function checkModuleWorkflowImport(target: Target, ref: ImportRef, file: string): string | undefined {
  const folder = /^((?:modules|test\/kit)\/[^/]+\/workflows)\//.exec(file)?.[1] ?? '';
  if (target.kind === 'package') {
    return WORKFLOW_PACKAGES.has(target.name)
      ? undefined
      : `${folder}/ may import only @temporalio/workflow and @temporalio/common from packages, not "${target.name}" (workflow code must stay deterministic; do the work in an activity)`;
  }
  if (target.kind === 'builtin') return `${folder}/ must not import Node built-in "${target.name}" (workflow code is sandboxed and deterministic; use an activity)`;
  if (ref.typeOnly || target.folder === 'core' || target.relative.startsWith(`${folder}/`)) return undefined;
  return `${folder}/ may import only core/ and its own folder, and anything else only with \`import type\` (call activities through proxyActivities), not ${target.relative}`;
}

const RULES: Rule[] = [
  { folder: 'modules', files: (relative) => MODULE_WORKFLOW_FILE.test(relative), check: checkModuleWorkflowImport },
  { folder: 'test/kit', files: (relative) => MODULE_WORKFLOW_FILE.test(relative), check: checkModuleWorkflowImport },
  {
    folder: 'workflows',
    check(target, ref) {
      if (target.kind === 'package') {
        return WORKFLOW_PACKAGES.has(target.name)
          ? undefined
          : `workflows/ may import only @temporalio/workflow and @temporalio/common from packages, not "${target.name}" (workflow code must stay deterministic; do the work in an activity)`;
      }
      if (target.kind === 'builtin') return `workflows/ must not import Node built-in "${target.name}" (workflow code is sandboxed and deterministic; use an activity)`;
      if (target.folder === 'workflows' || target.folder === 'core') return undefined;
      if (target.folder === 'activities') {
        return ref.typeOnly ? undefined : 'workflows/ may import activities/ only with `import type` (call activities through proxyActivities/proxyLocalActivities)';
      }
      return `workflows/ may import only core/ and (as types) activities/, not ${target.folder}/`;
    },
  },
  {
    folder: 'core',
    check(target, ref) {
      if (target.kind === 'internal') return target.folder === 'core' ? undefined : `core/ imports nothing internal outside core/, not ${target.relative}`;
      if (target.kind === 'builtin' && !ref.typeOnly) return `core/ is pure and I/O-free (and is bundled into workflows): no Node built-in "${target.name}"`;
      return undefined;
    },
  },
  {
    folder: 'db',
    check(target) {
      if (target.kind !== 'internal' || target.folder === 'db' || target.folder === 'core') return undefined;
      return `db/ may import only core/, not ${target.relative}`;
    },
  },
  {
    // Credentials (API keys, OAuth), the usage ledger and proposals sit beneath every module: they
    // use the module kit's own files (modules/*.ts: the definition, the tool, the registry), never a module.
    folder: 'kernel',
    check(target) {
      if (target.kind !== 'internal' || ['kernel', 'core', 'db'].includes(target.folder)) return undefined;
      if (target.folder === 'modules' && !target.relative.slice('modules/'.length).includes('/')) return undefined;
      return `kernel/ may import core/, db/ and the module kit's files (modules/*.ts), never a module or an outer layer (${target.relative})`;
    },
  },
  {
    folder: 'modules',
    check(target, _ref, file, root) {
      if (target.kind !== 'internal') return undefined;
      if (OUTER_LAYERS.has(target.folder)) return `modules/ may import core/, db/ and other modules, never ${target.folder}/ (${target.relative})`;
      // The platform is the kernel every module builds on: it reaches product modules only through the registry's extension points.
      const targetModule = moduleOf(target.relative);
      if (moduleOf(file) === 'platform' && targetModule && targetModule !== 'platform') {
        return `modules/platform/ must not import the ${targetModule} module (${target.relative}); declare an extension point on ModuleDefinition and read it through modules/index.ts`;
      }
      const owner = /^modules\/([^/]+)\/models(\/|$)/.exec(target.relative)?.[1];
      if (owner && owner !== moduleOf(file)) {
        return `modules/${moduleOf(file)}/ must not import modules/${owner}/models (${target.relative}); call the ${owner} module's services instead`;
      }
      return peerImportProblem(root, file, target.relative);
    },
  },
  {
    folder: 'api',
    check(target) {
      if (target.kind !== 'internal' || target.folder !== 'activities') return undefined;
      return `api/ never imports activities/ (${target.relative}); start a workflow through the Temporal client instead`;
    },
  },
];

/**
 * The source files below `dir`. A module's own tests (`modules/<m>/__tests__/`) are left out, as
 * test/ is: they reach into the module, its neighbours' tables and the test harness by design.
 */
function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const files: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '__tests__' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(full));
    else if (SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files;
}

export function checkBoundaries(root: string): { violations: Violation[]; filesChecked: number } {
  const violations: Violation[] = [];
  let filesChecked = 0;
  for (const rule of RULES) {
    for (const file of sourceFiles(path.join(root, rule.folder))) {
      const relative = path.relative(root, file).split(path.sep).join('/');
      if (rule.files && !rule.files(relative)) continue;
      filesChecked += 1;
      for (const ref of importsOf(file, fs.readFileSync(file, 'utf8'))) {
        const message = rule.check(classify(root, file, ref.specifier), ref, relative, root);
        if (message) violations.push({ file: path.relative(root, file), line: ref.line, specifier: ref.specifier, message });
      }
    }
  }
  return { violations, filesChecked };
}

const SQL_WORDS = /\b(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP)\b/i;

/** Each `$<digit>` that sits inside a single-quoted literal of `sql` (`''` is an escaped quote). */
export function placeholdersInQuotedLiterals(sql: string): string[] {
  const found: string[] = [];
  let quoted = false;
  for (let i = 0; i < sql.length; i += 1) {
    const ch = sql[i];
    if (ch === "'") {
      if (quoted && sql[i + 1] === "'") { i += 1; continue; }
      quoted = !quoted;
    } else if (quoted && ch === '$' && /[0-9]/.test(sql[i + 1] ?? '')) {
      found.push(/^\$[0-9]+/.exec(sql.slice(i))![0]);
    }
  }
  return found;
}

/** SQL-looking string and template literals of a file with a `$n` inside a quoted SQL literal. */
export function sqlLiteralViolations(fileName: string, text: string): Array<{ line: number; placeholders: string[] }> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: Array<{ line: number; placeholders: string[] }> = [];
  const visit = (node: ts.Node): void => {
    let sql: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) sql = node.text;
    // An interpolation stands in as an opaque token; the quoting around it is still checked.
    else if (ts.isTemplateExpression(node)) sql = node.head.text + node.templateSpans.map((span) => `\u0000${span.literal.text}`).join('');
    if (sql !== undefined && SQL_WORDS.test(sql)) {
      const placeholders = placeholdersInQuotedLiterals(sql);
      if (placeholders.length > 0) out.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, placeholders });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Folders whose files may send SQL; tests are left out (they build SQL to probe the database itself). */
const SQL_FOLDERS = ['modules', 'kernel', 'db', 'activities', 'api', 'scripts', 'bench', 'worker'];

export function checkSqlLiterals(root: string): { violations: Violation[]; filesChecked: number } {
  const violations: Violation[] = [];
  let filesChecked = 0;
  for (const folder of SQL_FOLDERS) {
    for (const file of sourceFiles(path.join(root, folder))) {
      filesChecked += 1;
      for (const hit of sqlLiteralViolations(file, fs.readFileSync(file, 'utf8'))) {
        violations.push({
          file: path.relative(root, file), line: hit.line, specifier: hit.placeholders.join(', '),
          message: 'a bind placeholder inside a quoted SQL literal: Sequelize binds it anyway; pass the value as a parameter or spell the text differently',
        });
      }
    }
  }
  return { violations, filesChecked };
}

/** Each table's module: the one whose models/ declares it (`tableName: '…'`). */
export function tableOwners(root: string): Map<string, string> {
  const owners = new Map<string, string>();
  const modulesDir = path.join(root, 'modules');
  if (!fs.existsSync(modulesDir)) return owners;
  for (const entry of fs.readdirSync(modulesDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    for (const file of sourceFiles(path.join(modulesDir, entry.name, 'models'))) {
      for (const match of fs.readFileSync(file, 'utf8').matchAll(/tableName:\s*'([a-z0-9_]+)'/g)) owners.set(match[1]!, entry.name);
    }
  }
  return owners;
}

/** Tables a piece of SQL reads or writes (FROM, JOIN, INTO, UPDATE, DELETE FROM), lower-cased. */
export function tablesInSql(sql: string): string[] {
  return [...sql.matchAll(/\b(?:from|join|into|update)\s+([a-z_][a-z0-9_]*)/gi)].map((match) => match[1]!.toLowerCase());
}

/**
 * SQL in modules/<x> that names a table of modules/<y>: a module reaches another's rows through its
 * services (or a view that module publishes for others to join), never its tables. Migrations are
 * exempt: a migration may reference an earlier module's table in a foreign key.
 */
export function checkTableOwnership(root: string): { violations: Violation[]; filesChecked: number } {
  const owners = tableOwners(root);
  const violations: Violation[] = [];
  let filesChecked = 0;
  for (const file of sourceFiles(path.join(root, 'modules'))) {
    const relative = path.relative(root, file).split(path.sep).join('/');
    const module = moduleOf(relative);
    if (!module || /\/migrations\//.test(relative)) continue;
    filesChecked += 1;
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      let sql: string | undefined;
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) sql = node.text;
      else if (ts.isTemplateExpression(node)) sql = node.head.text + node.templateSpans.map((span) => ` ${span.literal.text}`).join('');
      if (sql !== undefined && SQL_WORDS.test(sql)) {
        for (const table of new Set(tablesInSql(sql))) {
          const owner = owners.get(table);
          if (owner && owner !== module) {
            violations.push({
              file: relative, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, specifier: table,
              message: `modules/${module}/ reaches the ${owner} module's table ${table} in SQL; call the ${owner} module's services, or join a view it publishes`,
            });
          }
        }
        return;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { violations, filesChecked };
}

/** Folders whose runtime import graph must hold no cycle; bench/ is measurement code run on its own, test/ builds fixtures. */
export const CYCLE_FOLDERS = ['core', 'db', 'temporal', 'kernel', 'modules', 'api', 'activities', 'workflows', 'worker', 'scripts'];

/** The file a relative specifier loads, as Node's resolution (through tsx) would find it; undefined outside the project's sources. */
function resolveSource(fromFile: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), specifier.replace(/\.(m|c)?js$/, ''));
  const candidates = [base, ...SOURCE_EXTENSIONS.map((ext) => base + ext), ...SOURCE_EXTENSIONS.map((ext) => path.join(base, `index${ext}`))];
  return candidates.find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
}

/**
 * The import graph of `folders` as it runs: file to the files it loads. `import type` edges are left
 * out: they are erased at compile time, so they neither decide load order nor can leave a module
 * half-initialised, which is what a cycle costs.
 */
export function runtimeImportGraph(root: string, folders: readonly string[] = CYCLE_FOLDERS, withTypeOnly = false): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const files = folders.flatMap((folder) => sourceFiles(path.join(root, folder)));
  const known = new Set(files);
  for (const file of files) {
    const edges = new Set<string>();
    for (const ref of importsOf(file, fs.readFileSync(file, 'utf8'))) {
      if ((ref.typeOnly && !withTypeOnly) || !ref.specifier.startsWith('.')) continue;
      const target = resolveSource(file, ref.specifier);
      if (target && known.has(target)) edges.add(target);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** The graph's cycles: each strongly connected set of more than one file (or a file importing itself), files sorted. Tarjan's walk, iterative. */
export function importCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const walk: Array<{ node: string; edges: Iterator<string> }> = [];
    const enter = (node: string) => {
      index.set(node, next); low.set(node, next); next += 1;
      stack.push(node); onStack.add(node);
      walk.push({ node, edges: (graph.get(node) ?? new Set<string>()).values() });
    };
    enter(start);
    while (walk.length > 0) {
      const frame = walk[walk.length - 1]!;
      const step = frame.edges.next();
      if (!step.done) {
        const to = step.value;
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      walk.pop();
      if (walk.length > 0) {
        const parent = walk[walk.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do { member = stack.pop()!; onStack.delete(member); component.push(member); } while (member !== frame.node);
      if (component.length > 1 || graph.get(frame.node)?.has(frame.node)) cycles.push(component.sort());
    }
  }
  return cycles;
}

/**
 * Cycles accepted on purpose, each exactly as listed (a cycle that grows or changes is reported):
 * none. An entry here needs a reason beside it; the fix is nearly always an extension point.
 */
const KNOWN_CYCLES = new Set<string>();

export function checkCycles(root: string, known: ReadonlySet<string> = KNOWN_CYCLES): { violations: Violation[]; filesChecked: number } {
  const graph = runtimeImportGraph(root);
  const violations = importCycles(graph).flatMap((files) => {
    const shown = files.map((file) => path.relative(root, file).split(path.sep).join('/'));
    if (known.has(shown.join(' ⇄ '))) return [];
    return [{
      file: shown[0]!, line: 1, specifier: `${files.length} file(s)`,
      message: `an import cycle: ${shown.join(' ⇄ ')}; break it with an extension point the lower file declares, or by passing what is needed in`,
    }];
  });
  return { violations, filesChecked: graph.size };
}

function main(): void {
  const root = path.resolve(process.argv[2] ?? path.join(__dirname, '..'));
  const imports = checkBoundaries(root);
  const sql = checkSqlLiterals(root);
  const tables = checkTableOwnership(root);
  const cycles = checkCycles(root);
  const violations = [...imports.violations, ...sql.violations, ...tables.violations, ...cycles.violations];
  if (violations.length === 0) {
    console.log(`lint:boundaries: ok (${imports.filesChecked} files in ${RULES.map((r) => `${r.folder}/`).join(', ')}; SQL literals in ${sql.filesChecked} files; table ownership in ${tables.filesChecked} module files; no import cycle among ${cycles.filesChecked} files)`);
    return;
  }
  console.error(`lint:boundaries: ${violations.length} violation(s) of the import rules (see docs/design.md, "Layout"), the SQL literal rule or table ownership:`);
  for (const v of violations) console.error(`  ${v.file}:${v.line}  "${v.specifier}"\n    ${v.message}`);
  process.exitCode = 1;
}

if (require.main === module) main();
