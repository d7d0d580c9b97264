import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { SA_KIND, SA_ORG } from '../../../core/search-attributes';

/**
 * Starts the delivery of a message queued outside a tool call (a public page's POST, say), as the
 * `channels.send_message` follow-up does after a tool: the message workflow (workflows/message.ts,
 * whose id this repeats: workflow code imports no client code) hands it to the outbox, waiting out
 * quiet hours. Starting it twice is harmless.
 */
export async function startMessageDelivery(deps: { temporal: Client; taskQueue: string }, orgId: string, messageId: string): Promise<void> {
  await deps.temporal.workflow.start('channelMessageWorkflow', {
    taskQueue: deps.taskQueue, workflowId: `channel-message-${orgId}-${messageId}`, args: [{ orgId, messageId }],
    typedSearchAttributes: [{ key: SA_ORG, value: orgId }, { key: SA_KIND, value: 'channel_message' }],
  }).catch((error: unknown) => {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  });
}
