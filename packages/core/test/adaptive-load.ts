import type { Scheduler, VirtualClock } from "../src/index.js";
import { flush } from "./harness.js";

/** How the simulated upstream answers one request, given how many run at once when it starts. */
export interface Answer {
  readonly ttfbMs: number;
  readonly runMs: number;
  /** An error to release the permit with (the upstream failed). */
  readonly error?: unknown;
}

/**
 * A closed loop of `clients` that each hold one request at a time through `acquire()`: the request
 * reports its first byte after `ttfbMs` and ends after `runMs`, as `answer` says. It records every
 * grant after which more ran than the limit in force at that moment (read in the `started` event).
 */
export class ClosedLoad {
  running = 0;
  readonly violations: string[] = [];
  starts = 0;
  #stopped = false;

  constructor(
    readonly scheduler: Scheduler,
    readonly clock: VirtualClock,
    readonly answer: (running: number) => Answer,
  ) {
    scheduler.on("started", () => {
      const { running, maxConcurrency } = scheduler.metrics();
      if (running > maxConcurrency) this.violations.push(`${running} running, limit ${maxConcurrency}`);
    });
  }

  start(clients: number): void {
    for (let i = 0; i < clients; i++) void this.#client();
  }

  stop(): void {
    this.#stopped = true;
  }

  async #client(): Promise<void> {
    while (!this.#stopped) {
      const permit = await this.scheduler.acquire();
      this.running++;
      this.starts++;
      const answer = this.answer(this.running);
      await this.#sleep(answer.ttfbMs);
      permit.firstByte();
      await this.#sleep(Math.max(0, answer.runMs - answer.ttfbMs));
      this.running--;
      permit.release(answer.error);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.clock.setTimer(resolve, ms));
  }
}

/** Moves virtual time forward by `ms` in steps of `step`, letting promise callbacks run between. */
export async function runFor(clock: VirtualClock, ms: number, step = 5): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += step) {
    clock.advance(step);
    await flush(8);
  }
}
