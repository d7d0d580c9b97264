/**
 * The service's one log: JSON lines on stderr, each an event name and a few allow-listed fields
 * (codes, ids, names of tools and workflows, counts). Redaction is by allow-list, not by pattern:
 * a field not named in SAFE_FIELDS never reaches the log, so no error message, argument, SQL
 * parameter or stack can, whatever a caller passes. Error messages shown to users quote what the
 * user sent (emails, names, ages, consent facts), which is why they are never logged; the code
 * says what happened, and the ids lead to the record. As a last guard, an email-shaped run in an
 * allowed value is masked.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Record<string, unknown>;

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** The only fields a log line may carry; each holds a code, an id, a name from the code base or a number. */
const SAFE_FIELDS = new Set([
  'code', 'tool', 'orgId', 'userId', 'credentialId', 'workflowId', 'runId', 'workflowType', 'activityType',
  'taskQueue', 'attempt', 'durationMs', 'status', 'errorName', 'sqlstate', 'constraint', 'table', 'where',
  'count', 'agents', 'automations', 'sdkComponent', 'method', 'path', 'causes',
]);

const MAX_VALUE_CHARS = 200;
const EMAIL = /[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[^\s@"'<>(),;:]+/g;

/** Where lines go; shared through globalThis so a test, and every module registry in the process, sees the same one. */
interface LogState {
  write: (line: string) => void;
  level: LogLevel;
}

const STATE_KEY = Symbol.for('steward.log');

function state(): LogState {
  const holder = globalThis as unknown as Record<symbol, LogState | undefined>;
  holder[STATE_KEY] ??= {
    write: (line) => process.stderr.write(`${line}\n`),
    // STEWARD_WORKER_LOG_LEVEL is the name the worker's level had before this log; it is still read.
    level: parseLevel(process.env.STEWARD_LOG_LEVEL ?? process.env.STEWARD_WORKER_LOG_LEVEL) ?? 'info',
  };
  return holder[STATE_KEY]!;
}

function parseLevel(given: string | undefined): LogLevel | undefined {
  const level = given?.toLowerCase();
  return level && level in LEVELS ? (level as LogLevel) : undefined;
}

function safeValue(value: unknown): string | number | boolean | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  return value.slice(0, MAX_VALUE_CHARS).replace(EMAIL, '[email]');
}

/** The allow-listed part of `fields`, values cut and emails masked. */
export function safeFields(fields: LogFields): Record<string, string | number | boolean> {
  const kept: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (!SAFE_FIELDS.has(name)) continue;
    const safe = safeValue(value);
    if (safe !== undefined) kept[name] = safe;
  }
  return kept;
}

/** Writes one line if `level` is at or above the log's level. `event` is a fixed phrase from the code, never built from data. */
export function log(level: LogLevel, event: string, fields: LogFields = {}): void {
  const current = state();
  if (LEVELS[level] < LEVELS[current.level]) return;
  const line = { time: new Date().toISOString(), level, event: safeValue(event), ...safeFields(fields) };
  current.write(JSON.stringify(line));
}

/** What may be logged of a thrown value: its class name and a stable code (a Steward code or a SQLSTATE), never its message. */
export function errorFields(error: unknown): LogFields {
  if (!error || typeof error !== 'object') return { errorName: typeof error };
  const given = error as { name?: unknown; code?: unknown; type?: unknown; original?: { code?: unknown; constraint?: unknown; table?: unknown } };
  const database = given.original && typeof given.original === 'object' ? given.original : (given as { code?: unknown; constraint?: unknown; table?: unknown });
  const sqlstate = typeof database.code === 'string' && /^[0-9A-Z]{5}$/.test(database.code) ? database.code : undefined;
  const code = typeof given.type === 'string' ? given.type : typeof given.code === 'string' && !sqlstate ? given.code : undefined;
  return {
    errorName: typeof given.name === 'string' ? given.name : 'Error',
    ...(code ? { code } : {}),
    ...(sqlstate ? { sqlstate, constraint: database.constraint, table: database.table } : {}),
  };
}

/** Sends lines to `write` at `level` (tests capture the log this way); answers a function that puts back what was there. */
export function redirectLog(write: (line: string) => void, level: LogLevel = 'debug'): () => void {
  const current = state();
  const before = { ...current };
  current.write = write;
  current.level = level;
  return () => {
    current.write = before.write;
    current.level = before.level;
  };
}
