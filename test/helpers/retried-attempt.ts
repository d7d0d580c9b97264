import { randomBytes, randomUUID } from 'node:crypto';
import type { Pool } from '../../db/pool';
import { ALL_SCOPES } from '../../core/scopes';
import { findTool } from '../../modules/catalogue';
import { getOrgSettings } from '../../modules/platform/orgs';
import type { TestOrg } from './harness';

/**
 * A tool's `prepare` step run as one attempt of the call `workflowId` runs it (activities/tool-activities.ts
 * prepareCall): on the pool, with the organisation's owner as caller. Two runs with one workflow id and
 * start are two attempts of one call (the first died after its provider call); another id is another call.
 */
export async function prepareAttempt(pool: Pool, org: TestOrg, tool: string, args: Record<string, unknown>, call: { workflowId: string; startedAt: Date }): Promise<any> {
  const found = findTool(tool);
  if (!found?.prepare) throw new Error(`${tool} has no prepare step`);
  const principal = {
    orgId: org.orgId, userId: org.ownerUserId, role: 'owner' as const, scopes: [...ALL_SCOPES], intent: null, credentialId: randomUUID(), credentialKind: 'api_key' as const,
  };
  return found.prepare(found.input.parse(args), {
    db: pool, org: await getOrgSettings(pool, org.orgId), principal, workflowId: call.workflowId, callStartedAt: call.startedAt,
  });
}

/**
 * Makes the next insert into `table` for `orgId` fail once with a serialization failure (SQLSTATE
 * 40001), which the tool call retries: the attempt dies after its `prepare` step's provider call and
 * before its transaction commits, and the next attempt runs `prepare` again. A trigger of the test's
 * own; the count lives in a sequence, which the failed transaction's rollback does not undo.
 */
export async function failNextInsertOnce(pool: Pool, table: string, orgId: string): Promise<{ inserts(): Promise<number>; remove(): Promise<void> }> {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`Not a table name: ${table}`);
  const name = `test_fault_${randomBytes(6).toString('hex')}`;
  await pool.query(`CREATE TABLE ${name} (org_id uuid PRIMARY KEY)`);
  await pool.query(`INSERT INTO ${name} (org_id) VALUES ($1)`, [orgId]);
  await pool.query(`CREATE SEQUENCE ${name}_seq`);
  await pool.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $fault$
    BEGIN
      IF EXISTS (SELECT 1 FROM ${name} WHERE org_id = NEW.org_id) THEN
        IF nextval('${name}_seq') = 1 THEN
          RAISE EXCEPTION 'injected: the attempt lost its transaction' USING ERRCODE = '40001';
        END IF;
      END IF;
      RETURN NEW;
    END $fault$`);
  await pool.query(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  return {
    inserts: async () => {
      const { rows } = await pool.query(`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM ${name}_seq`);
      return Number(rows[0].n);
    },
    remove: async () => {
      await pool.query(`DROP TRIGGER ${name} ON ${table}`);
      await pool.query(`DROP FUNCTION ${name}()`);
      await pool.query(`DROP SEQUENCE ${name}_seq`);
      await pool.query(`DROP TABLE ${name}`);
    },
  };
}
