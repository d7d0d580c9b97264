import { Runtime, type LogLevel as SdkLevel, type LogMetadata, type Logger } from '@temporalio/worker';
import { errorFields, log, type LogFields, type LogLevel } from '../core/log';

const LEVEL_OF: Record<SdkLevel, LogLevel> = { TRACE: 'debug', DEBUG: 'debug', INFO: 'debug', WARN: 'warn', ERROR: 'error' };

/**
 * What the SDK's log entries may carry into ours: its ids and names (workflow and activity info
 * arrive flattened or nested), and of an error only its class and code. The SDK attaches the
 * thrown error whole, message and stack included, and a tool's message quotes its caller's data.
 */
function sdkFields(meta: LogMetadata | undefined): LogFields {
  if (!meta) return {};
  const nested = (meta.workflowExecution ?? {}) as { workflowId?: unknown; runId?: unknown };
  return {
    workflowId: meta.workflowId ?? nested.workflowId,
    runId: meta.runId ?? nested.runId,
    workflowType: meta.workflowType,
    activityType: meta.activityType,
    taskQueue: meta.taskQueue,
    attempt: meta.attempt,
    durationMs: meta.durationMs,
    sdkComponent: meta.sdkComponent,
    ...(meta.error ? errorFields(meta.error) : meta.err ? errorFields(meta.err) : {}),
  };
}

/**
 * A workflow fails because an activity failed (already logged: a tool call once by its code and
 * tool in runTool, other activities by the SDK's "Activity failed") or because it answered a
 * caller with a Steward error (not_found, an expired proposal), which is no fault. Its error
 * crosses out of the workflow sandbox as a bare Error, its code lost, so it cannot be told apart:
 * at debug, one failed call stays one line at the default level (info).
 */
function levelOf(level: SdkLevel, message: string, fields: LogFields): LogLevel {
  if (message === 'Workflow failed') return 'debug';
  // runTool logs its own failures with the tool's name (activities/tool-activities.ts); the SDK's line would be a second.
  if (message === 'Activity failed' && fields.activityType === 'runTool') return 'debug';
  return LEVEL_OF[level];
}

/** The SDK's fixed phrase, without any value it appended after a colon (some append an error's message). */
function sdkEvent(message: string): string {
  const colon = message.indexOf(':');
  return colon === -1 ? message : message.slice(0, colon);
}

/** Temporal's logger, writing through the service's log (core/log.ts) so its entries are redacted like ours. */
export function temporalLogger(): Logger {
  const write = (level: SdkLevel, message: string, meta?: LogMetadata) => {
    const fields = sdkFields(meta);
    log(levelOf(level, message, fields), sdkEvent(message), fields);
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

/**
 * The SDK logs every worker state change at INFO, which the service's log takes as debug; its
 * warnings and errors stay. STEWARD_LOG_LEVEL=debug brings the rest back.
 * Must run before the first worker or native connection is created.
 */
export function installWorkerLogging(options: { ownSignals?: boolean } = {}): void {
  // ownSignals: the process has its own ordered shutdown, so the SDK must not start draining on a signal by itself.
  Runtime.install({ logger: temporalLogger(), ...(options.ownSignals ? { shutdownSignals: [] } : {}) });
}
