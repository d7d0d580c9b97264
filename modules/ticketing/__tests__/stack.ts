// The payment sandbox's stack and the MCP call helpers are shared with store and ticketing's suites (test/helpers/sandbox-stack.ts).
export { attempt, call, eventually, inDays, paymentsStack, refusal, type CallError } from '../../../test/helpers/sandbox-stack';
