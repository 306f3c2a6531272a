import type { TimerHandle } from "@llm-scheduler/core";
import { attempt } from "./attempt.js";
import type { BatchEmitter } from "./events.js";
import type { ResolvedBatchesOptions } from "./options.js";
import type { BatchSummary, Claim, Outcome } from "./store.js";
import { BatchWatch } from "./watch.js";

interface Running {
  readonly claim: Claim;
  readonly controller: AbortController;
}

const keyOf = (batchId: string, index: number): string => `${batchId}:${index}`;

/**
 * The dispatch loop of one instance: claims due items from the store (at most `maxInFlight` held at
 * once), runs each attempt through the scheduler, reports the outcome, and on a timer extends the
 * claims it holds, aborts the ones it lost, and sweeps windows that ended.
 *
 * @example
 * const runner = new Runner(options, events);
 * runner.start();
 * runner.wake(); // a batch was created: look for items now
 */
export class Runner {
  readonly #options: ResolvedBatchesOptions;
  readonly #events: BatchEmitter;
  readonly #watch: BatchWatch;
  readonly #running = new Map<string, Running>();
  #timer: TimerHandle | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #claiming = false;
  #again = false;
  #closed = false;
  #idle: Array<() => void> = [];

  constructor(options: ResolvedBatchesOptions, events: BatchEmitter) {
    this.#options = options;
    this.#events = events;
    this.#watch = new BatchWatch(options.store, events);
  }

  /** Starts the heartbeat (an API-only instance, `maxInFlight` 0, runs nothing but still follows its batches). */
  start(): void {
    this.#arm(this.#period());
    this.wake();
  }

  /** Items held by this instance now. */
  get inFlight(): number {
    return this.#running.size;
  }

  /** Looks for due items now (after a create, a settle, a retryFailed). */
  wake(): void {
    if (this.#closed || this.#options.maxInFlight === 0) return;
    if (this.#claiming) {
      this.#again = true;
      return;
    }
    this.#claiming = true;
    void this.#claimRound().finally(() => {
      this.#claiming = false;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  async #claimRound(): Promise<void> {
    const { store, clock, maxInFlight, visibilityMs, instanceId, onError, order } = this.#options;
    const room = maxInFlight - this.#running.size;
    if (room <= 0) return;
    try {
      const reply = await store.claim(instanceId, room, clock.now(), visibilityMs, order);
      for (const claim of reply.claims) this.#launch(claim);
      if (reply.claims.length === room) this.#again = true;
      if (reply.nextDueAt !== undefined) this.#arm(Math.max(0, reply.nextDueAt - clock.now()));
    } catch (error) {
      onError(error);
    }
  }

  #launch(claim: Claim): void {
    const key = keyOf(claim.batchId, claim.item.index);
    this.#running.get(key)?.controller.abort(); // a lapsed claim of ours taken again: the new one wins
    const controller = new AbortController();
    const running = { claim, controller };
    this.#running.set(key, running);
    void attempt(claim, this.#options, controller.signal)
      .then((outcome) => this.#settle(claim, outcome))
      .catch((error: unknown) => this.#options.onError(error))
      .finally(() => {
        if (this.#running.get(key) === running) this.#running.delete(key);
        if (this.#running.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
        this.wake();
      });
  }

  /**
   * Reports an outcome; while the store cannot be reached it tries again every `pollMs` for as long as
   * the claim would stay ours (`visibilityMs`), so that a short outage repeats no upstream call.
   */
  async #report(claim: Claim, outcome: Outcome) {
    const { store, clock, pollMs, visibilityMs, onError } = this.#options;
    const until = clock.now() + visibilityMs;
    for (;;) {
      try {
        return await store.settle(claim, outcome, clock.now());
      } catch (error) {
        if (clock.now() + pollMs > until) throw error;
        onError(error);
        await new Promise<void>((resolve) => clock.setTimer(resolve, pollMs));
      }
    }
  }

  async #settle(claim: Claim, outcome: Outcome): Promise<void> {
    const reply = await this.#report(claim, outcome);
    if (reply === undefined || outcome.kind === "release") return;
    const { batch } = reply;
    const made = claim.attemptsMade + 1;
    const outcomeName =
      outcome.kind === "retry" ? "retrying" : outcome.error === null ? "completed" : "failed";
    const { customId } = claim.item;
    this.#events.emit("item", {
      batchId: batch.id,
      customId,
      outcome: outcomeName,
      attempts: made,
      last: outcome.attempt,
    });
    if (outcome.kind === "final") this.announce(batch);
  }

  /** Emits `progress`, and `done` when the batch reached a final status (once per change). */
  announce(batch: BatchSummary): void {
    this.#watch.announce(batch);
  }

  /** Aborts this instance's attempts of one batch (it was cancelled or expired). */
  abortBatch(batchId: string): void {
    for (const running of this.#running.values()) {
      if (running.claim.batchId === batchId) running.controller.abort();
    }
  }

  #period(): number {
    return Math.min(this.#options.pollMs, Math.floor(this.#options.visibilityMs / 3));
  }

  #arm(ms: number): void {
    const { clock } = this.#options;
    const at = clock.now() + ms;
    if (this.#closed || at >= this.#timerAt) return;
    if (this.#timer !== undefined) clock.clearTimer(this.#timer);
    this.#timerAt = at;
    this.#timer = clock.setTimer(() => {
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      void this.#tick();
    }, ms);
  }

  /** Heartbeat: extend held claims, abort lost ones, sweep ended windows, look for work. */
  async #tick(): Promise<void> {
    const { store, clock, visibilityMs, onError } = this.#options;
    try {
      const held = [...this.#running.values()].map((running) => running.claim);
      const lost = held.length === 0 ? [] : await store.extend(held, clock.now(), visibilityMs);
      for (const claim of lost) this.#running.get(keyOf(claim.batchId, claim.item.index))?.controller.abort();
      for (const batch of await store.sweep(clock.now())) {
        this.abortBatch(batch.id);
        this.announce(batch);
      }
      await this.#watch.poll();
    } catch (error) {
      onError(error);
    }
    this.#arm(this.#period());
    this.wake();
  }

  /** Stops claiming; gives back (releases) what runs and resolves once every attempt has ended. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) this.#options.clock.clearTimer(this.#timer);
    this.#timer = undefined;
    for (const running of this.#running.values()) running.controller.abort();
    if (this.#running.size === 0) return;
    await new Promise<void>((resolve) => this.#idle.push(resolve));
  }
}
