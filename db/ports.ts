import fs from 'node:fs';
import net from 'node:net';

/**
 * Ports and the processes holding them, for the launcher's start-up checks: which port is taken,
 * and by what, said plainly instead of an EADDRINUSE stack.
 */

/** The ports `npm start` and its parts listen on unless told otherwise; each outside Linux's ephemeral range (32768–60999), where an outgoing connection could already hold it. */
export const DEFAULT_PORTS = { api: 3000, temporal: 7233, temporalUi: 8233, embeddedPostgres: 25432 } as const;

/** True when nothing listens on `port` on 127.0.0.1 (a listen that fails says so). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A problem the person starting Steward can fix (a port in use, a folder it cannot reach); shown as a message, never as a stack trace. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** The inodes of sockets listening on `port` (IPv4 and IPv6), from /proc/net/tcp*. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[];
    try {
      lines = fs.readFileSync(table, 'utf8').trim().split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      // local_address is addr:port in hex; state 0A is LISTEN; the inode is the tenth field.
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A' && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** "pid 1234 (temporal server start-dev …)" for the process listening on `port`, when this machine lets us see it. */
export function describePortHolder(port: number): string | undefined {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  for (const pid of safeReadDir('/proc').filter((name) => /^\d+$/.test(name))) {
    for (const fd of safeReadDir(`/proc/${pid}/fd`)) {
      const target = safeReadLink(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target ?? '')?.[1];
      if (inode && inodes.has(inode)) return `pid ${pid} (${commandOf(pid)})`;
    }
  }
  return 'a process this user cannot see';
}

/** The message for a port that is taken: which port, for what, held by what, and how to choose another. */
export function portInUseMessage(port: number, forWhat: string, setting: string): string {
  const holder = describePortHolder(port);
  return `Port ${port} on 127.0.0.1 is in use${holder ? ` by ${holder}` : ''}, so ${forWhat} cannot start. Stop it, or choose another port with ${setting}.`;
}

/** Whether a process of this pid is still there (signal 0 only asks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A process's command line, word by word; empty when it is gone or not ours to read. */
export function argsOf(pid: string | number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

export function commandOf(pid: string | number): string {
  const shown = argsOf(pid).join(' ');
  return shown.length > 120 ? `${shown.slice(0, 117)}…` : shown || 'unknown command';
}

function safeReadDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function safeReadLink(file: string): string | undefined {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined;
  }
}
