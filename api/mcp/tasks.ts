import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { ErrorCode, McpError, RELATED_TASK_META_KEY, type CallToolResult, type Task } from '@modelcontextprotocol/sdk/types.js';
import { outreachWorkflowId, proposalWorkflowId } from '../../core/approvals';
import { hasScope, type Principal } from '../../core/principal';
import type { Pool } from '../../db/pool';
import { permittedToolNames } from '../../modules/catalogue';
import { getOutreachItem } from '../../modules/people/outreach';
import { getVisibleProposal } from '../../kernel/proposals';
import { toolErrorResult, toolResult } from './results';

/**
 * MCP tasks (experimental in the SDK) for calls that wait on a person. The task
 * id is the approval workflow's id (proposal-<id> or outreach-<id>), and its
 * status is read from the proposal or outreach record each time, so any API
 * replica can answer tasks/get and tasks/result: nothing is held in memory.
 * Tasks are created by tools/call (with `task` in its params), never directly;
 * they end when the person decides, and cannot be cancelled from the client
 * (the decision belongs to the person). A task is seen only with the scope its
 * record needs: people:read for a message, the action tool's scope for a
 * proposal; otherwise, like another organisation's task, it does not exist.
 */

export const TASK_POLL_INTERVAL_MS = Number(process.env.STEWARD_MCP_TASK_POLL_MS ?? 2000);
/** The longest tasks/result holds a request for a task still waiting on a person before answering its status (read per call, so tests can tune it). */
const taskResultWaitMs = () => Number(process.env.STEWARD_MCP_TASK_RESULT_WAIT_MS ?? 5000);
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const TASK_ID = new RegExp(`^(proposal|outreach)-(${UUID})$`, 'i');

/** The task (approval workflow) id named by a task call's approval_required details, or by its tool's `task.pendingOf`. */
export function taskIdFor(details: Record<string, unknown> | undefined): string | undefined {
  if (typeof details?.proposalId === 'string') return proposalWorkflowId(details.proposalId);
  if (typeof details?.outreachId === 'string') return outreachWorkflowId(details.outreachId);
  return undefined;
}

interface TaskView {
  task: Task;
  result?: CallToolResult;
  /** For a task not ended yet: where its approval stands, as the call's own approval_required answer says it. */
  standing?: Record<string, unknown>;
}

async function view(pool: Pool, principal: Principal, taskId: string): Promise<TaskView | null> {
  const match = TASK_ID.exec(taskId);
  if (!match) return null;
  const [, kind, id] = match;
  if (kind === 'proposal') {
    const proposal = await getVisibleProposal(pool, principal.orgId, id, permittedToolNames(principal));
    if (!proposal) return null;
    const base = { taskId, ttl: null, createdAt: proposal.createdAt, lastUpdatedAt: proposal.decidedAt ?? proposal.createdAt, pollInterval: TASK_POLL_INTERVAL_MS };
    const standing = { proposalId: id, proposalStatus: proposal.status, check: { tool: 'platform_get_proposal', arguments: { proposalId: id } } };
    if (proposal.status === 'pending') return { task: { ...base, status: 'working', statusMessage: `Waiting for an owner or admin to approve: ${proposal.summary}` }, standing };
    if (proposal.status === 'approved' && proposal.execution?.status === 'succeeded') {
      return { task: { ...base, status: 'completed', statusMessage: 'Approved and carried out' }, result: toolResult(proposal.execution.result) };
    }
    if (proposal.status === 'approved' && !proposal.execution) return { task: { ...base, status: 'working', statusMessage: 'Approved; being carried out' }, standing };
    const error = proposal.execution?.error
      ?? { code: 'forbidden', message: `The proposal was ${proposal.status}; the action was not carried out`, details: { proposalId: id, status: proposal.status } };
    return { task: { ...base, status: 'failed', statusMessage: error.message }, result: toolErrorResult(error) };
  }
  if (!hasScope(principal, 'people:read')) return null;
  const item = await getOutreachItem(pool, principal.orgId, id);
  if (!item) return null;
  const base = { taskId, ttl: null, createdAt: item.createdAt, lastUpdatedAt: item.updatedAt, pollInterval: TASK_POLL_INTERVAL_MS };
  if (item.status === 'sent') return { task: { ...base, status: 'completed', statusMessage: 'Approved and sent' }, result: toolResult({ item }) };
  if (item.status === 'declined' || item.status === 'cancelled') {
    return {
      task: { ...base, status: 'failed', statusMessage: `The message was ${item.status}` },
      result: toolErrorResult({ code: 'forbidden', message: `The message was ${item.status}; it was not sent`, details: { outreachId: id, status: item.status } }),
    };
  }
  const waiting = item.sendError ? `Approved but not sent: ${item.sendError.message}` : item.status === 'approved' ? 'Approved; sending' : 'Waiting for a person to review the message';
  return { task: { ...base, status: 'working', statusMessage: waiting } };
}

export function approvalTaskStore(pool: Pool, principal: Principal): TaskStore {
  const notFound = (taskId: string) => new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
  return {
    async createTask() {
      throw new McpError(ErrorCode.InvalidRequest, 'Tasks are created by tools/call on a tool that waits for approval');
    },
    async getTask(taskId) {
      return (await view(pool, principal, taskId))?.task ?? null;
    },
    async storeTaskResult(taskId) {
      throw notFound(taskId);
    },
    async getTaskResult(taskId) {
      const found = await view(pool, principal, taskId);
      if (!found?.result) throw notFound(taskId);
      return found.result;
    },
    async updateTaskStatus(_taskId, status) {
      throw new McpError(ErrorCode.InvalidRequest, status === 'cancelled'
        ? 'An approval task ends when a person decides; reject the proposal or cancel the message instead'
        : 'Approval tasks change only when a person decides');
    },
    async listTasks() {
      return { tasks: [] };
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A result of the task, marked as such (as the SDK marks the results it hands out). */
function relatedTo(result: CallToolResult, taskId: string): CallToolResult {
  return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
}

/**
 * What tasks/result answers for a task not ended yet: approval_required with where it stands, as a
 * plain call answers: `status` is the task's, and for a proposal `proposalStatus` tells one still
 * waiting for a person (pending) from one approved whose action is running (approved).
 */
function stillWaiting({ task, standing }: TaskView): CallToolResult {
  return relatedTo(toolErrorResult({
    code: 'approval_required', message: task.statusMessage ?? 'Waiting for a person',
    hint: 'Poll tasks/get, and ask tasks/result again once the task is completed or failed.',
    details: { taskId: task.taskId, status: task.status, pollInterval: task.pollInterval, ...standing },
  }), task.taskId);
}

/**
 * tasks/result: a decided task's result; for one still waiting on a person, its status after at
 * most a few seconds of polling its record. The SDK's own handler would hold the request until the
 * task ends, which for a person may be days, so this one replaces it (see api/mcp/router.ts).
 */
export async function boundedTaskResult(pool: Pool, principal: Principal, taskId: string, signal?: AbortSignal): Promise<CallToolResult> {
  const deadline = Date.now() + taskResultWaitMs();
  for (;;) {
    const found = await view(pool, principal, taskId);
    if (!found) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    if (found.result) return relatedTo(found.result, taskId);
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) return stillWaiting(found);
    await sleep(Math.min(left, found.task.pollInterval ?? TASK_POLL_INTERVAL_MS));
  }
}
