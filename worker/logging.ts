import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';

/**
 * The SDK logs every worker state change at INFO; WARN keeps the console for
 * what needs attention. STEWARD_WORKER_LOG_LEVEL=INFO brings the rest back.
 * Must run before the first worker or native connection is created.
 */
export function installWorkerLogging(options: { ownSignals?: boolean } = {}): void {
  const level = (process.env.STEWARD_WORKER_LOG_LEVEL ?? 'WARN').toUpperCase() as LogLevel;
  // ownSignals: the process has its own ordered shutdown, so the SDK must not start draining on a signal by itself.
  Runtime.install({ logger: new DefaultLogger(level), ...(options.ownSignals ? { shutdownSignals: [] } : {}) });
}
