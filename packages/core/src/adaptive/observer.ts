import type { Clock } from "../clock.js";
import type { LimitEvent, SchedulerEvents } from "../events.js";
import type { LimitProposal, LimitState, MaybePromise, TokenUsage } from "../store.js";
import { LimitController, type ObservedTask } from "./controller.js";
import type { ResolvedAdaptive } from "./options.js";
import { endingSignal } from "./signals.js";
import { TenantBackoff } from "./tenant-backoff.js";

/** What the reporter tells an observer of running tasks (only while one is set). */
export interface RunObserver {
  started(task: ObservedTask): void;
  /** The upstream's first byte, `ms` after the task's start. */
  firstByte(task: ObservedTask, ms: number): void;
  usage(task: ObservedTask, usage: TokenUsage): void;
  ended(task: ObservedTask, ok: boolean, value: unknown): void;
}

/** The scheduler's side of the adaptive limit. */
export interface AdaptiveHost {
  readonly clock: Clock;
  running(): number;
  /** The limit the store must work with now; `undefined` when the limit is no longer adaptive. */
  apply(limit: number | undefined): void;
  readonly share: ((proposal: LimitProposal) => MaybePromise<LimitState>) | undefined;
  emit(event: LimitEvent): void;
  error(error: unknown): void;
  /** Tenants held back after 429s of their own, with their concurrency (an empty map: none). */
  holdTenants(caps: ReadonlyMap<string, number>): void;
  /** One tenant's hold changed (see the `backoff` event). */
  emitBackoff(event: SchedulerEvents["backoff"]): void;
}

/**
 * The adaptive limit of one scheduler: a {@link LimitController} while `maxConcurrency` is a range, none
 * otherwise, fed with the tasks' starts, first bytes, usage and endings. A 429 goes to the
 * {@link TenantBackoff} first: while other tenants succeed it slows only the tenant it answered.
 */
export class AdaptiveLimit implements RunObserver {
  readonly #host: AdaptiveHost;
  #controller: LimitController | null = null;
  #config: ResolvedAdaptive | null = null;
  #backoff = new TenantBackoff();
  /** The caps the store was last given. */
  #caps: ReadonlyMap<string, number> = new Map();
  readonly #outputTokens = new WeakMap<ObservedTask, number>();

  constructor(host: AdaptiveHost) {
    this.#host = host;
  }

  /** True while the limit is adaptive. */
  get active(): boolean {
    return this.#controller !== null;
  }

  /** The adaptive limit in force, or `undefined` when the limit is fixed. */
  get limit(): number | undefined {
    return this.#controller?.limit;
  }

  /** From the options (at creation and on each `update()`); `setTo` is a limit the update names. */
  configure(adaptive: ResolvedAdaptive | null, setTo: number | undefined): void {
    this.#config = adaptive;
    if (adaptive === null) {
      this.#controller = null;
      this.#host.apply(undefined);
      this.#backoff = new TenantBackoff();
      if (this.#caps.size > 0) this.#holdsChanged();
    } else if (this.#controller === null) {
      const initial = Math.min(adaptive.max, Math.max(adaptive.floor, setTo ?? adaptive.initial));
      this.#controller = new LimitController({ ...adaptive, initial }, this.#host);
      this.#host.apply(initial);
    } else {
      this.#controller.reconfigure(adaptive, setTo);
    }
  }

  /** The effective reserves in force now (their sum): the limit's floor follows them. */
  setReserved(total: number): void {
    this.#controller?.setReserved(total);
  }

  started(task: ObservedTask): void {
    this.#controller?.started(task);
  }

  firstByte(task: ObservedTask, ms: number): void {
    this.#controller?.firstByte(task, ms);
  }

  /** The upstream's own reading of its load (see `Scheduler.upstreamLoad`); nothing while the limit is fixed. */
  upstreamLoad(load: number): void {
    this.#controller?.upstreamLoad(load);
  }

  usage(task: ObservedTask, usage: TokenUsage): void {
    this.#outputTokens.set(task, usage.outputTokens);
  }

  ended(task: ObservedTask, ok: boolean, value: unknown): void {
    const controller = this.#controller;
    const config = this.#config;
    if (controller === null || config === null) return;
    let signal = endingSignal(ok, value);
    const now = this.#host.clock.now();
    const { windowMs, cooldownMs } = config;
    if (signal === "rate-limited") {
      const limit = controller.limit;
      const verdict = this.#backoff.refused(task.tenant, task.startedAt, now, {
        limit,
        windowMs,
        cooldownMs,
      });
      if (verdict === "held") this.#holdsChanged();
      signal = verdict === "held" ? "neutral" : "overload";
    } else if (signal === "ok" && this.#backoff.succeeded(task.tenant, now, windowMs, controller.limit)) {
      this.#holdsChanged();
    }
    controller.ended(task, signal, this.#outputTokens.get(task));
  }

  /** Gives the store the caps in force, and tells of each tenant whose hold moved. */
  #holdsChanged(): void {
    const before = this.#caps;
    const after = this.#backoff.caps();
    const moved: Array<SchedulerEvents["backoff"]> = [];
    for (const tenant of new Set([...before.keys(), ...after.keys()])) {
      const previous = before.get(tenant) ?? null;
      const maxConcurrency = after.get(tenant) ?? null;
      if (previous !== maxConcurrency) moved.push({ tenant, maxConcurrency, previous });
    }
    if (moved.length === 0) return;
    this.#caps = after;
    this.#host.holdTenants(after);
    for (const event of moved) this.#host.emitBackoff(event);
  }
}
