import type { Pool } from '../db/pool';
import { createApprovalActivities } from './approval-activities';
import { createToolActivities } from './tool-activities';

export function createActivities(deps: { pool: Pool }) {
  return { ...createToolActivities(deps), ...createApprovalActivities(deps) };
}

export type Activities = ReturnType<typeof createActivities>;
