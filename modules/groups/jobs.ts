import { queryRows, withTenantTransaction, type Pool } from '../../db/pool';
import { localDateAt, organisationTimeZone } from '../schedule/api';
import { closePastClosingDates } from './enrolment';

/**
 * Daily: groups whose closing date has passed record that their enrolment closed (when and why),
 * so the group's history says so; reads already treat a passed date as closed. Idempotent.
 */
export async function closeEnrolmentPastClosingDate(pool: Pool, input: { now: Date; orgId?: string }): Promise<Record<string, number>> {
  const organisations = input.orgId
    ? [input.orgId]
    : (await queryRows<{ org_id: string }>(pool, `SELECT DISTINCT org_id FROM groups_groups WHERE closes_on IS NOT NULL AND auto_closed_reason IS NULL AND archived_at IS NULL ORDER BY org_id`)).map((row) => row.org_id);
  let closed = 0;
  for (const orgId of organisations) {
    closed += await withTenantTransaction(pool, orgId, async (client) => closePastClosingDates(client, orgId, localDateAt(input.now, await organisationTimeZone(client, orgId))));
  }
  return { organisations: organisations.length, closed };
}
