import type { Pool } from '../db/pool';
import { createToolActivities } from './tool-activities';

export function createActivities(deps: { pool: Pool }) {
  return { ...createToolActivities(deps) };
}

export type Activities = ReturnType<typeof createActivities>;
