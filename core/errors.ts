/**
 * Stable error codes. Clients branch on `code`; `message` is for people and
 * may change; `hint` names the next step (often another tool).
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_request: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  forbidden: 403,
  not_found: 404,
  unknown_tool: 404,
  payload_too_large: 413,
  use_workflow_tool: 405,
  method_not_allowed: 405,
  use_invoke_bridge: 400,
  conflict: 409,
  idempotency_conflict: 409,
  allowance_exceeded: 402,
  // The organisation's own spend cap on a metered feature (billing_set_spend_cap) is reached.
  spend_cap_reached: 402,
  // The subscription's state does not allow the use now (canceled, unpaid, paused, or a marketing send while past due).
  subscription_inactive: 402,
  approval_required: 202,
  internal_error: 500,
  // A promised capability whose module this server does not have yet: 501 Not Implemented, since the
  // request is well formed and names something real (404 would suggest a typo worth correcting).
  module_not_available: 501,
  unavailable: 503,
  // A capability that needs an outside provider this server has no settings for (the message names the setting).
  not_configured: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorIssue {
  path: string;
  message: string;
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  hint?: string;
  issues?: ErrorIssue[];
  details?: Record<string, unknown>;
}

/** An expected failure: carries a stable code and never a stack to the caller. */
export class StewardError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly issues?: ErrorIssue[];
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, extra: { hint?: string; issues?: ErrorIssue[]; details?: Record<string, unknown> } = {}) {
    super(message);
    this.name = 'StewardError';
    this.code = code;
    this.hint = extra.hint;
    this.issues = extra.issues;
    this.details = extra.details;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message };
    if (this.hint) body.hint = this.hint;
    if (this.issues) body.issues = this.issues;
    if (this.details) body.details = this.details;
    return body;
  }

  static fromBody(body: ErrorBody): StewardError {
    return new StewardError(body.code, body.message, body);
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && value in ERROR_STATUS;
}

export function httpStatusFor(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

export const notFound = (what: string, hint?: string) =>
  new StewardError('not_found', `${what} was not found`, hint ? { hint } : {});

/** How much of a caller's value an error message may quote. */
export const QUOTE_LIMIT = 40;

/**
 * A caller's value as an error message may quote it: at most a short prefix, with its full
 * length when cut, so a message, a log line or a workflow failure never repeats a huge value.
 */
export function quoteInput(value: unknown, limit = QUOTE_LIMIT): string {
  const text = typeof value === 'string' ? value : String(value);
  if (text.length <= limit) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, limit))}… (${text.length} characters)`;
}

/** Cuts a message (built by code, but perhaps from caller data) to `limit` characters. */
export function clipMessage(message: string, limit = 2_000): string {
  return message.length <= limit ? message : `${message.slice(0, limit)}… (cut from ${message.length} characters)`;
}
