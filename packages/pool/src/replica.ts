import { type Clock, createScheduler, type Permit, type Scheduler } from "@llm-scheduler/core";
import { ReplicaHealth } from "./health.js";
import type { ReplicaOptions, ResolvedHealth } from "./options.js";
import type { EngineSignals, ReplicaState } from "./replica-state.js";

/** Counters of one replica, in `pool.metrics().replicas`. */
export interface ReplicaMetrics extends ReplicaState {
  readonly url: string;
  readonly engine: EngineSignals | undefined;
  /** Requests sent to it (every attempt). */
  readonly sent: number;
  /** Attempts that failed before their first byte and went on to another replica (or gave up). */
  readonly failedBeforeFirstByte: number;
  readonly consecutiveFailures: number;
  readonly ejections: number;
}

const LANE = "replica";

/**
 * One replica: its own limit (a small core scheduler used only through `tryAcquire`, so a fixed or
 * adaptive limit behaves exactly as core's), its health and the latest engine signals.
 */
export class Replica {
  readonly id: string;
  readonly url: string;
  readonly health: ReplicaHealth | undefined;
  readonly #limiter: Scheduler;
  #inFlight = 0;
  #engine: EngineSignals | undefined;
  #engineAt = 0;
  #sent = 0;
  #failedBeforeFirstByte = 0;

  constructor(
    id: string,
    options: ReplicaOptions,
    clock: Clock,
    health: ResolvedHealth | undefined,
    changed: (healthy?: boolean) => void,
  ) {
    this.id = id;
    this.url = options.url;
    this.#limiter = createScheduler({
      maxConcurrency: options.maxConcurrency,
      ...(options.adaptive === undefined ? {} : { adaptive: options.adaptive }),
      priorities: { [LANE]: { weight: 1 } },
      defaultPriority: LANE,
      clock,
    });
    this.#limiter.on("limit", () => changed());
    this.health = health === undefined ? undefined : new ReplicaHealth(health, () => clock.now(), changed);
  }

  get healthy(): boolean {
    return this.health?.healthy ?? true;
  }

  /** The limit in force (fixed, or where the adaptive limit stands). */
  get limit(): number {
    return this.#limiter.maxConcurrency;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** A slot on this replica now, or `undefined` when it has none free. Release it exactly once. */
  take(tenant: string | undefined): Permit | undefined {
    const permit = this.#limiter.tryAcquire(tenant === undefined ? {} : { tenant });
    if (permit === undefined) return undefined;
    this.#inFlight += 1;
    this.#sent += 1;
    return permit;
  }

  /** Gives a slot from {@link take} back; `failure` feeds the adaptive limit as in core. */
  give(permit: Permit, failure?: unknown): void {
    if (!permit.held) return;
    this.#inFlight -= 1;
    permit.release(failure);
  }

  countFailedBeforeFirstByte(): void {
    this.#failedBeforeFirstByte += 1;
  }

  setEngine(signals: EngineSignals | undefined, at: number): void {
    this.#engine = signals;
    this.#engineAt = at;
  }

  /** The engine's own load, for an adaptive limit (see `engineLoad`); a fixed limit ignores it. */
  feedLimit(load: number): void {
    this.#limiter.upstreamLoad(load);
  }

  /** The engine signals, or `undefined` when none came within `staleMs` of `now`. */
  engine(now: number, staleMs: number): EngineSignals | undefined {
    return now - this.#engineAt <= staleMs ? this.#engine : undefined;
  }

  state(now: number, staleMs: number): ReplicaState & Pick<ReplicaMetrics, "url" | "engine"> {
    return {
      id: this.id,
      url: this.url,
      limit: this.limit,
      inFlight: this.#inFlight,
      healthy: this.healthy,
      engine: this.engine(now, staleMs),
    };
  }

  metrics(now: number, staleMs: number): ReplicaMetrics {
    return {
      ...this.state(now, staleMs),
      sent: this.#sent,
      failedBeforeFirstByte: this.#failedBeforeFirstByte,
      consecutiveFailures: this.health?.consecutiveFailures ?? 0,
      ejections: this.health?.ejections ?? 0,
    };
  }

  close(): Promise<void> {
    return this.#limiter.close();
  }
}
