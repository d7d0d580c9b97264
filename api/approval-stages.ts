import type { ProposalDecisionResult } from '../core/approvals';
import type { CallProgress } from '../temporal/call-progress';
import type { ProposalDecisionStatus } from '../temporal/proposal-progress';

/**
 * Where a gated call stands once its wait for a person is over: the decision, the approved action
 * starting, the action's own progress (rows, recipients), and its end.
 */
export type ApprovalStage =
  | { stage: ProposalDecisionStatus; message: string }
  | { stage: 'running'; message: string }
  | { stage: 'work'; done: number; total?: number; message: string }
  | { stage: 'done' | 'failed'; message: string };

export type ApprovalStageListener = (stage: ApprovalStage) => Promise<void> | void;

type Step = 'waiting' | 'decided' | 'running' | 'finished';

/**
 * The stages of one gated call, told once each and in order, however the reports arrive. The
 * decision comes from the proposal's workflow as it is recorded; the action's progress from its
 * child tool call; the end from the proposal's result. Reports are best effort (one may be lost on
 * its way from a worker in another process), so a later one stands for the stages before it: the
 * action's first report means it was approved and runs, and the result tells what was decided.
 * The action starts as soon as the approval is recorded (workflows/proposal.ts), so an approval
 * is told together with the action running.
 */
export class ProposalStages {
  private step: Step = 'waiting';
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly tool: string, private readonly listener: ApprovalStageListener) {}

  /** True until a decision is heard: only then is the caller still waiting for a person. */
  get waiting(): boolean {
    return this.step === 'waiting';
  }

  decided(status: ProposalDecisionStatus): void {
    if (this.step !== 'waiting') return;
    this.step = 'decided';
    this.tell({ stage: status, message: decisionLine(status, this.tool) });
    if (status === 'approved') this.running();
  }

  /** A report of the approved action's own progress. */
  work(progress: CallProgress): void {
    if (this.step === 'finished') return;
    this.decided('approved');
    this.tell({
      stage: 'work', done: progress.done, ...(progress.total === undefined ? {} : { total: progress.total }),
      message: progress.message ?? `${this.tool}: ${progress.done}${progress.total === undefined ? '' : ` of ${progress.total}`}`,
    });
  }

  /** The proposal's outcome: the stages not yet told, then its end; resolves once all have gone. */
  async finish(outcome: ProposalDecisionResult): Promise<void> {
    if (this.step !== 'finished' && outcome.status !== 'pending') {
      this.decided(outcome.status);
      if (outcome.status === 'approved') {
        this.tell(outcome.execution?.status === 'succeeded'
          ? { stage: 'done', message: `Done: ${this.tool} was carried out` }
          : { stage: 'failed', message: `Approved, but ${this.tool} failed` });
      }
      this.step = 'finished';
    }
    await this.sending;
  }

  private running(): void {
    this.step = 'running';
    this.tell({ stage: 'running', message: `Running ${this.tool}` });
  }

  /** In order, one after another; a listener's failure never reaches the call. */
  private tell(stage: ApprovalStage): void {
    this.sending = this.sending.then(() => this.listener(stage)).catch(() => undefined);
  }
}

function decisionLine(status: ProposalDecisionStatus, tool: string): string {
  if (status === 'approved') return 'Approved by an owner or admin';
  if (status === 'rejected') return `Rejected by an owner or admin: ${tool} was not carried out`;
  return `The proposal expired before anyone decided: ${tool} was not carried out`;
}
