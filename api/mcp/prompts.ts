import { ErrorCode, McpError, type GetPromptResult, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import { StewardError, quoteInput } from '../../core/errors';
import { hasScope, type Principal } from '../../core/principal';
import { allPlaybooks } from '../../modules/catalogue';
import { PLAYBOOK_ARGUMENT_MAX, type Playbook } from '../../modules/playbooks';

/** Playbooks as MCP prompts: listed and given only to credentials holding every scope they need. */
const mayFollow = (principal: Principal, playbook: Playbook) => playbook.scopes.every((scope) => hasScope(principal, scope));

export function promptsFor(principal: Principal): Prompt[] {
  return allPlaybooks().filter((playbook) => mayFollow(principal, playbook)).map((playbook) => ({
    name: playbook.name,
    title: playbook.title,
    description: `${playbook.description} Tools: ${playbook.tools.join(', ')}.`,
    arguments: (playbook.arguments ?? []).map((argument) => ({ name: argument.name, description: argument.description, required: argument.required ?? false })),
  }));
}

function invalid(message: string, hint?: string): McpError {
  const error = new StewardError('validation_failed', message, hint ? { hint } : {});
  return new McpError(ErrorCode.InvalidParams, error.message, { error: error.toBody() });
}

export function playbookPrompt(principal: Principal, name: string, args: Record<string, string>): GetPromptResult {
  const playbook = allPlaybooks().find((candidate) => candidate.name === name);
  // A playbook the credential may not follow is answered exactly like one that does not exist.
  if (!playbook || !mayFollow(principal, playbook)) throw invalid(`There is no playbook named ${quoteInput(name)}`, 'prompts/list shows the playbooks this credential can follow.');
  const declared = new Set((playbook.arguments ?? []).map((argument) => argument.name));
  const unknown = Object.keys(args).filter((key) => !declared.has(key));
  if (unknown.length > 0) throw invalid(`Unknown arguments for ${playbook.name}: ${unknown.map((key) => quoteInput(key)).join(', ')}`);
  for (const argument of playbook.arguments ?? []) {
    const value = args[argument.name];
    if (argument.required && (value === undefined || value.trim() === '')) throw invalid(`${playbook.name} needs the argument ${argument.name}: ${argument.description}`);
    if (value !== undefined && value.length > PLAYBOOK_ARGUMENT_MAX) throw invalid(`The argument ${argument.name} is longer than ${PLAYBOOK_ARGUMENT_MAX} characters`);
  }
  const values = Object.fromEntries(Object.entries(args).map(([key, value]) => [key, value.trim()]));
  return {
    description: playbook.description,
    messages: [{ role: 'user', content: { type: 'text', text: playbook.steps(values) } }],
  };
}
