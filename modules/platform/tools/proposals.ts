import { z } from 'zod';
import { AGENTS, AUTONOMY_MODES, PROPOSAL_STATUSES, mayDecideProposals, type AgentKey } from '../../../core/approvals';
import { StewardError } from '../../../core/errors';
import { toolsFor } from '../../kit';
import { agentSchema, listAgents, setAgentAutonomy } from '../agents';
import { listProposals, proposalExecutionSchema, proposalSchema, requireVisibleProposal } from '../../../kernel/proposals';

const tools = toolsFor('platform', { read: 'platform:read', write: 'platform:write' });

const proposalId = z.uuid().describe('The proposal\'s id');
const AGENT_KEYS = AGENTS.map((agent) => agent.key) as [AgentKey, ...AgentKey[]];

const decisionOutput = z.object({
  proposalId: z.uuid(),
  status: z.enum(PROPOSAL_STATUSES),
  execution: proposalExecutionSchema.nullable().describe('For an approval: the executed action\'s outcome'),
}).strict();

function decidedByWorkflow(): never {
  throw new StewardError('internal_error', 'This tool is carried out by the proposal\'s workflow, not as a plain tool call');
}

export const pendingProposalsTool = tools.read('pending_proposals', {
  title: 'Pending proposals',
  description: 'Actions proposed by the autonomous agents (or by tool calls that need approval) that wait for an owner or admin, newest first. Pass status to see decided ones. Lists only proposals whose action this credential could run itself (it holds the action tool\'s scope).',
  keywords: ['approvals', 'agent proposals', 'awaiting approval', 'review queue', 'to approve'],
  examples: ['what is waiting for my approval', 'things the assistants want me to okay', 'anything the bots are waiting for me to sign off', 'list the suggestions queued for an admin to approve', 'what has the pastoral agent suggested that needs a yes or no', 'show me the approval queue', 'show the proposals I turned down recently', 'any pending actions from the giving assistant', 'approvals waiting', "I've been away a fortnight, what have the agents queued up for me to decide?", 'is there anything needing my okay?'],
  listed: true,
  input: z.object({
    status: z.enum([...PROPOSAL_STATUSES, 'all']).default('pending'),
    agent: z.enum(AGENT_KEYS).optional(),
    limit: z.number().int().min(1).max(200).default(50),
  }),
  output: z.object({ proposals: z.array(proposalSchema), count: z.number().int() }).strict(),
  run: async (ctx, input) => {
    const proposals = await listProposals(ctx.db, ctx.org.id, { ...input, actionTools: ctx.catalogue.permittedTools(ctx.principal).map((tool) => tool.name) });
    return { proposals, count: proposals.length };
  },
});

export const getProposalTool = tools.read('get_proposal', {
  title: 'One proposal',
  description: 'One proposal with its action payload (tool and arguments), status, and, once approved, the outcome of running it. A proposal whose action needs a scope this credential lacks is not found.',
  keywords: ['proposal details', 'action payload'],
  examples: ['show me exactly what the agent is proposing', 'details of one suggestion waiting for approval', 'open that proposal and show me the full details', 'what exactly would happen if I approve this one', 'what did the approved proposal actually do when it ran', "show the arguments in the people agent's suggestion", 'look at proposal 42 in detail', 'did that suggestion I approved run successfully', 'open proposal 17', 'before I say yes to the email suggestion, show me the exact message and who it goes to', 'what is the welfare visit proposal actually asking to do?'],
  input: z.object({ proposalId }),
  output: z.object({ proposal: proposalSchema }).strict(),
  run: async (ctx, input) => ({ proposal: await requireVisibleProposal(ctx.db, ctx.org.id, input.proposalId, ctx.catalogue.permittedTools(ctx.principal).map((tool) => tool.name)) }),
});

export const approveProposalTool = tools.write('approve_proposal', {
  title: 'Approve and execute a proposal',
  description: 'Approves a pending proposal and executes its action once, returning the outcome. If the action then fails, the call answers the action\'s own error (code, message), with details.execution; the proposal stays approved with that failure recorded (platform_get_proposal). Needs an owner or admin credential with platform:write (and the scope the action needs). A proposal that was already decided cannot be decided again.',
  keywords: ['approve', 'accept proposal', 'execute proposal'],
  examples: ['go ahead with the suggested action', 'accept what the assistant proposed and carry it out', 'yes, approve that one', 'sign off the welfare visit suggestion and let it run', "okay the agent's idea, go ahead with it", 'green light the proposal to tag the new visitors', "I'm happy with it, approve and carry it out", "approve the giving agent's suggestion about the open batch", 'approve it', 'the suggestion to welcome the Kowalskis looks right, approve it so it runs', "can you okay the proposal about Sunday's rota gap?"],
  listed: true,
  input: z.object({ proposalId, reason: z.string().trim().max(500).optional() }),
  output: decisionOutput,
  approval: { kind: 'update', target: 'proposal', decision: 'approve', idArg: 'proposalId' },
  run: async () => decidedByWorkflow(),
});

export const rejectProposalTool = tools.write('reject_proposal', {
  title: 'Reject a proposal',
  description: 'Rejects a pending proposal; its action is never executed, and the agent does not propose the same thing again. Needs an owner or admin credential with platform:write.',
  keywords: ['reject', 'decline proposal', 'deny'],
  examples: ["say no to the agent's suggestion", 'refuse the proposed action', "no, don't do that one", 'turn down the suggestion to email the lapsed members', 'knock back the proposal from the spaces agent', "bin that suggestion, I don't want it done", "decline it and make sure it isn't suggested again", 'reject the message the pastoral helper wants to send Jean', 'reject proposal 17', "the agent wants to text everyone about giving but that's too pushy, decline it", "I don't want that suggestion done, can you refuse it?"],
  listed: true,
  input: z.object({ proposalId, reason: z.string().trim().max(500).optional() }),
  output: decisionOutput,
  approval: { kind: 'update', target: 'proposal', decision: 'reject', idArg: 'proposalId' },
  run: async () => decidedByWorkflow(),
});

export const listAgentsTool = tools.read('list_agents', {
  title: 'Autonomous agents',
  description: 'The autonomous agents (People, Pastoral Care, Giving, Grow, Spaces, Ticketing, Guests, Runsheet, MediaHub, Channels, Live) with their autonomy mode (off, propose, auto), schedule and last run.',
  keywords: ['agents', 'autonomy', 'automation', 'last run'],
  examples: ['which assistants do we have and what mode are they in', 'when did the background helpers last run', 'which automations are switched on at the moment', 'is the pastoral care agent on auto or just suggesting', 'list the background assistants and their schedules', 'when did the giving bot last do anything', 'are any of the agents turned off', 'show me all the automatic helpers we run', 'agents and their modes', 'Pete says a bot sent something overnight, which agents are running and when did they last run?', 'which automatic helpers are currently switched on?'],
  input: z.object({}),
  output: z.object({ agents: z.array(agentSchema) }).strict(),
  // Listing makes sure every agent's schedule exists; it changes none.
  followUp: { kind: 'sync_agent_schedules', ifMissing: true },
  run: async (ctx) => ({ agents: await listAgents(ctx.db, ctx.org.id) }),
});

export const setAgentAutonomyTool = tools.write('set_agent_autonomy', {
  power: 'organisation',
  title: 'Set an agent\'s autonomy',
  description: 'Turns an autonomous agent off, to propose (its findings become proposals for an owner or admin) or to auto (it carries them out and records what it did). Pastoral messages are never sent without a person approving them, whatever the mode. Owner or admin only.',
  keywords: ['enable agent', 'disable agent', 'autonomy mode', 'agent schedule'],
  // An agent acting alone is power over the organisation: raising one to auto waits for a person to approve it.
  approval: { kind: 'gated', when: { reason: 'the agent is raised to full autonomy (auto)', applies: async (args) => args.autonomy === 'auto' } },
  examples: ['let the assistant act without asking', 'make an agent only suggest things, not act', 'switch off the giving agent', 'put the pastoral care assistant into suggest-only mode', 'let the people agent just get on with it automatically', 'stop the ticketing bot doing anything by itself', 'turn the spaces agent back on to propose', 'I want the guests assistant to ask me before acting', 'turn off the channels agent', "we've had complaints about automatic emails, so make the channels agent ask first from now on", "I'd like the runsheet assistant to just handle things itself"],
  input: z.object({
    agent: z.enum(AGENT_KEYS),
    autonomy: z.enum(AUTONOMY_MODES),
    intervalMinutes: z.number().int().min(5).max(60 * 24 * 30).optional().describe('How often the agent runs (default daily)'),
  }),
  output: z.object({ agent: agentSchema }).strict(),
  followUp: { kind: 'sync_agent_schedules', ifMissing: false },
  run: async (ctx, input) => {
    if (!mayDecideProposals(ctx.principal)) {
      throw new StewardError('forbidden', 'Only an owner or admin can change an agent\'s autonomy');
    }
    return { agent: await setAgentAutonomy(ctx.db, ctx.org.id, input.agent, input.autonomy, input.intervalMinutes) };
  },
});
