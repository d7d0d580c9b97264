import { init } from './2026.11.22T00.20.00.init';
import { oauth } from './2026.11.22T01.00.00.oauth';
import { people } from './2026.11.22T01.10.00.people';
import { approvals } from './2026.11.22T01.30.00.approvals';
import { outboxLease } from './2026.11.22T02.00.00.outbox-lease';

export interface Migration {
  name: string;
  up: string;
  down: string;
}

/** Applied in this order; names are timestamps so the order is also the history. */
export const MIGRATIONS: Migration[] = [
  init,
  oauth,
  people,
  approvals,
  outboxLease,
];
