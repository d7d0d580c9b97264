/** Task queue every Steward worker polls. */
export const TOOL_TASK_QUEUE = 'steward-tools';

/** Caller-chosen idempotency keys: short, printable, no separators that could forge another org's id. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export function toolCallWorkflowId(orgId: string, key: string): string {
  return `call-${orgId}-${key}`;
}

/** Internal calls share the `call-<org>-` namespace (a proposal's action is `call-<org>-proposal-<id>`), so callers may not use these. */
const RESERVED_KEY_PREFIXES = ['proposal-'];

export function isReservedIdempotencyKey(key: string): boolean {
  return RESERVED_KEY_PREFIXES.some((prefix) => key.startsWith(prefix));
}
