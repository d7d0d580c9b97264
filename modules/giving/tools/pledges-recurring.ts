import type { AnyTool } from '../../tool';

/** Refunds, pledge campaigns and pledges, recurring gifts. */
export const pledgeAndRecurringTools: readonly AnyTool[] = [];
