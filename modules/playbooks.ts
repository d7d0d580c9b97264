import type { Scope } from '../core/scopes';

/**
 * A playbook: a multi-step procedure an organisation runs with an agent, served as an MCP
 * prompt (prompts/list, prompts/get) and listed in the discovery documents. It names the tools
 * it uses; a catalogue test fails when one does not exist or needs a scope the playbook does
 * not declare, so a playbook can never send an agent to a tool it cannot reach.
 */
export interface PlaybookArgument {
  name: string;
  description: string;
  required?: boolean;
}

export interface Playbook {
  /** kebab-case, unique across modules. */
  name: string;
  title: string;
  /** One sentence: when to use it. */
  description: string;
  /** Every scope a credential needs to follow it; prompts/list shows it only to credentials holding them all. */
  scopes: readonly Scope[];
  /** Every tool the steps name. */
  tools: readonly string[];
  arguments?: readonly PlaybookArgument[];
  /** The instructions, given the arguments (each at most PLAYBOOK_ARGUMENT_MAX characters). */
  steps: (args: Readonly<Record<string, string>>) => string;
}

export const PLAYBOOK_ARGUMENT_MAX = 500;

export function definePlaybook(playbook: Playbook): Playbook {
  if (!/^[a-z][a-z0-9-]+$/.test(playbook.name)) throw new Error(`Playbook name ${playbook.name} must be kebab-case`);
  return playbook;
}

/** The text every playbook ends with: what an agent must never do on its own. */
export const HUMAN_FIRST = 'Anything that sends a message, moves money or changes what a person may see waits for a person\'s approval: never work around an approval_required answer.';
