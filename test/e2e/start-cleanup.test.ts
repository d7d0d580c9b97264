import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from '../../db/ports';
import { findTemporalCli, freePort, startDevServer, stopChild } from '../../scripts/lib/temporal-dev-server';

const ROOT = path.join(__dirname, '..', '..');

describe('starting after a crash', () => {
  it('stops a Temporal dev server an earlier, killed start left on the same data, then starts its own', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-start-'));
    const dbFile = path.join(dir, 'temporal.db');
    const port = await freePort();
    // The first launcher "dies": its server is never stopped and keeps the port and the file.
    const leftover = await startDevServer({ port, headless: true, dbFile, ownProcessGroup: true });
    const leftoverPid = leftover.process.pid!;
    leftover.process.unref();
    const second = await startDevServer({ port, headless: true, dbFile, ownProcessGroup: true });
    try {
      expect(isAlive(leftoverPid)).toBe(false);
      expect(second.process.pid).not.toBe(leftoverPid);
      expect(second.address).toBe(`127.0.0.1:${port}`);
    } finally {
      await second.stop();
      if (isAlive(leftoverPid)) await stopChild(leftover.process);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  /**
   * Runs `check` with a stand-in CLI (TEMPORAL_CLI_PATH) that logs `failure` and exits on its first
   * `failures` runs, then runs the real one; `runs()` says how many times it was started.
   */
  const withFlakyCli = async (failures: number, failure: string, check: (dir: string, runs: () => number) => Promise<void>) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-start-'));
    const script = path.join(dir, 'temporal');
    const runsFile = path.join(dir, 'runs');
    fs.writeFileSync(script, [
      '#!/bin/sh',
      `echo run >> '${runsFile}'`,
      `if [ "$(wc -l < '${runsFile}')" -le ${failures} ]; then echo '${failure}' >&2; exit 2; fi`,
      `exec '${findTemporalCli()}' "$@"`,
    ].join('\n'), { mode: 0o755 });
    const saved = process.env.TEMPORAL_CLI_PATH;
    process.env.TEMPORAL_CLI_PATH = script;
    try {
      await check(dir, () => fs.readFileSync(runsFile, 'utf8').trim().split('\n').length);
    } finally {
      if (saved === undefined) delete process.env.TEMPORAL_CLI_PATH;
      else process.env.TEMPORAL_CLI_PATH = saved;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  it('starts the dev server again when it stops while starting because another process took one of its ports', async () => {
    await withFlakyCli(1, 'panic: runtime error: invalid memory address or nil pointer dereference', async (dir, runs) => {
      const server = await startDevServer({ headless: true, logFile: path.join(dir, 'temporal.log') });
      try {
        expect(runs()).toBe(2);
        expect(server.process.exitCode).toBeNull();
      } finally {
        await server.stop();
      }
    });
  }, 90_000);

  it('gives up with the log\'s last lines when the dev server fails to start for a reason a retry cannot mend', async () => {
    await withFlakyCli(5, 'unable to open database file: no such file or directory', async (dir, runs) => {
      await expect(startDevServer({ headless: true, logFile: path.join(dir, 'temporal.log') })).rejects.toThrow(/exited with code 2[\s\S]*no such file or directory/);
      expect(runs()).toBe(1);
    });
  }, 90_000);

  it('refuses to start when its port is taken, naming what holds it, and starts nothing', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const { port } = holder.address() as net.AddressInfo;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-start-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), STEWARD_DATA_DIR: dataDir };
      delete env.DATABASE_URL;
      delete env.TEMPORAL_ADDRESS;
      const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(ROOT, 'scripts', 'start.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk) => { stderr += String(chunk); });
      const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
      expect(code).toBe(1);
      expect(stderr).toContain(`Port ${port} on 127.0.0.1 is in use by pid ${process.pid}`);
      expect(stderr).toContain('choose another port with PORT');
      // No stack trace for a problem the person can fix, and no database was started for it.
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(fs.existsSync(path.join(dataDir, 'postgres'))).toBe(false);
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
