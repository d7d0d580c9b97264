import type { AnyTool } from '../../tool';

/** Gift Aid declarations and claims, GASDS, statements. */
export const giftAidTools: readonly AnyTool[] = [];
