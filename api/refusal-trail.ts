import type { StewardError } from '../core/errors';
import type { Principal } from '../core/principal';
import { withTenantTransaction, type Pool } from '../db/pool';
import { errorFields, log } from '../core/log';
import { findTool } from '../modules/catalogue';
import { insertAuditEvent, unsuccessfulEventOf } from '../modules/audit/record';
import { policyOf, type AnyTool } from '../modules/tool';

/**
 * The tool a refused call tried to use: the named tool, or for the dispatch tool the inner tool it
 * named (its refusal is the inner tool's).
 */
function attemptedTool(toolName: string, rawArgs: unknown): AnyTool | undefined {
  const tool = findTool(toolName);
  if (!tool?.dispatch) return tool;
  const inner = rawArgs && typeof rawArgs === 'object' ? (rawArgs as { toolName?: unknown }).toolName : undefined;
  return typeof inner === 'string' ? findTool(inner) : undefined;
}

/**
 * Writes the `denied` audit event of a write refused at the door (a scope or intent the credential
 * lacks), before any workflow starts: who tried what, with which credential. Its arguments were never
 * parsed, so none is kept. Reads leave no event when they succeed, so none when refused either.
 */
export async function recordRefusedWrite(pool: Pool, principal: Principal, toolName: string, rawArgs: unknown, refusal: StewardError): Promise<void> {
  const tool = attemptedTool(toolName, rawArgs);
  if (!tool || tool.effect === 'read') return;
  const plan = { tool: tool.name, module: tool.module, args: {}, principal, policy: policyOf(tool), argsHash: '' };
  try {
    await withTenantTransaction(pool, principal.orgId, (db) => insertAuditEvent(db, unsuccessfulEventOf(plan, tool, '', refusal.code)));
  } catch (error) {
    log('error', 'audit event of a refused call not written', { ...errorFields(error), tool: tool.name });
  }
}
