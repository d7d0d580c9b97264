import type { Principal } from './principal';

export type Effect = 'read' | 'write' | 'send';

export interface MeterPolicy {
  feature: string;
  units: number;
}

/** What the workflow needs to know about a tool, as plain data (no functions cross into workflow code). */
export interface ToolPolicy {
  effect: Effect;
  meter: MeterPolicy | null;
  timeline: boolean;
}

/** The plan a tool-call workflow executes. */
export interface ToolPlan {
  tool: string;
  module: string;
  args: Record<string, unknown>;
  principal: Principal;
  policy: ToolPolicy;
  /** sha-256 of the canonical arguments, to tell a replayed idempotency key from a reused one. */
  argsHash: string;
}

export interface ToolOutcome {
  result: unknown;
}
