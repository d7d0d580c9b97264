import type { AnyTool } from '../../tool';

/** Funds, givers, batches, donations, imports, summaries. */
export const coreTools: readonly AnyTool[] = [];
