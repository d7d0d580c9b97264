import type { MessageProvider, OutboundMessage } from '../../activities/provider-kit';

/** A message provider that records every call, and can hold calls open or fail them. */
export class FakeProvider implements MessageProvider {
  readonly calls: OutboundMessage[] = [];
  inside = 0;
  maxInside = 0;
  hold = false;
  failWith: Error | null = null;
  private gates: Array<() => void> = [];

  constructor(readonly idempotent: boolean) {}

  async send(message: OutboundMessage): Promise<{ providerMessageId: string }> {
    this.calls.push(message);
    this.inside += 1;
    this.maxInside = Math.max(this.maxInside, this.inside);
    try {
      if (this.hold) await new Promise<void>((resolve) => this.gates.push(resolve));
      if (this.failWith) throw this.failWith;
      return { providerMessageId: `fake-${this.calls.length}` };
    } finally {
      this.inside -= 1;
    }
  }

  /** Lets every held call finish. */
  open(): void {
    this.hold = false;
    for (const resolve of this.gates.splice(0)) resolve();
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds, failing after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await sleep(10);
  }
}
