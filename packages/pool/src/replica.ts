import { type Clock, createScheduler, type Permit, type Scheduler } from "@llm-scheduler/core";
import { ReplicaHealth } from "./health.js";
import type { ReplicaOptions, ResolvedHealth } from "./options.js";
import type { EngineSignals, ReplicaState } from "./replica-state.js";
import { countedBody, type ResolvedSpeed, SpeedMeter } from "./speed.js";

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
  /** Ejected, with its half-open probe due or under way (`healthy` is still false meanwhile). */
  readonly halfOpen: boolean;
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
  /** Its streaming speed, from the answers handed on; `undefined` with `speed: false`. */
  readonly speed: SpeedMeter | undefined;
  readonly #limiter: Scheduler;
  readonly #clock: Clock;
  #inFlight = 0;
  /** In flight over every instance, from a shared ledger; `undefined` without one (or while unreachable). */
  #fleetInFlight: number | undefined;
  #engine: EngineSignals | undefined;
  #engineAt = 0;
  /** This instance's in flight on the replica when its engine was last scraped. */
  #inFlightAtScrape = 0;
  #sent = 0;
  #failedBeforeFirstByte = 0;

  constructor(
    id: string,
    options: ReplicaOptions,
    clock: Clock,
    health: ResolvedHealth | undefined,
    changed: (healthy?: boolean) => void,
    speed?: ResolvedSpeed,
  ) {
    this.id = id;
    this.#clock = clock;
    this.speed = speed === undefined ? undefined : new SpeedMeter(speed);
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

  /** `body` handed on unchanged; when it ends normally, its streaming rate feeds {@link speed}. */
  measured(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const meter = this.speed;
    if (meter === undefined) return body;
    return countedBody(
      body,
      () => this.#clock.now(),
      (units, ms) => meter.record(units, ms),
    );
  }

  /** Sets what a shared ledger says is in flight on this replica over every instance (`undefined`: unknown). */
  setFleetInFlight(count: number | undefined): void {
    this.#fleetInFlight = count;
  }

  countFailedBeforeFirstByte(): void {
    this.#failedBeforeFirstByte += 1;
  }

  setEngine(signals: EngineSignals | undefined, at: number): void {
    this.#engine = signals;
    this.#engineAt = at;
    this.#inFlightAtScrape = this.#inFlight;
  }

  /** The engine's own load, for an adaptive limit (see `engineLoad`); a fixed limit ignores it. */
  feedLimit(load: number): void {
    this.#limiter.upstreamLoad(load);
  }

  /** The engine signals, or `undefined` when none came within `staleMs` of `now`. */
  engine(now: number, staleMs: number): EngineSignals | undefined {
    return now - this.#engineAt <= staleMs ? this.#engine : undefined;
  }

  /**
   * The engine signals as they stand now rather than at the scrape. When fewer of this instance's
   * requests are in flight than at the scrape, the engine has lost that many: each first lets one queued
   * request into its batch, the rest leave its batch and their share of the KV cache (never below 0).
   * More in flight than at the scrape leaves the reading as it was (the engine's room is unknown) until
   * the next scrape says what it is. So a full engine seen at one scrape holds batch work back only until
   * one of its requests ends, not for a whole scrape interval (decision 0070).
   */
  #reckoned(now: number, staleMs: number): EngineSignals | undefined {
    const engine = this.engine(now, staleMs);
    const gone = this.#inFlightAtScrape - this.#inFlight;
    if (engine === undefined || gone <= 0) return engine;
    const waiting = Math.max(0, engine.waiting - gone);
    const running = Math.max(0, engine.running - (gone - (engine.waiting - waiting)));
    const { kvCacheUsage } = engine;
    const perRequest = kvCacheUsage === undefined || engine.running === 0 ? 0 : kvCacheUsage / engine.running;
    return {
      waiting,
      running,
      kvCacheUsage:
        kvCacheUsage === undefined
          ? undefined
          : Math.max(0, kvCacheUsage - perRequest * (engine.running - running)),
    };
  }

  /**
   * The replica as a router sees it: its limit and in flight (over every instance when a shared ledger
   * says more than this instance's own count), health, and the engine's queue as reckoned now (routers
   * are pure functions of these views).
   */
  view(now: number, staleMs: number): ReplicaState {
    const fleet = this.#fleetInFlight;
    return {
      id: this.id,
      url: this.url,
      limit: this.limit,
      inFlight: fleet === undefined || fleet <= this.#inFlight ? this.#inFlight : fleet,
      healthy: this.healthy,
      engine: this.#reckoned(now, staleMs),
    };
  }

  metrics(now: number, staleMs: number): ReplicaMetrics {
    // Written out rather than `{ ...this.state(), sent, ... }`: V8 takes a slow path for a spread
    // followed by new keys, which made this the bulk of `pool.metrics()`.
    return {
      id: this.id,
      url: this.url,
      limit: this.limit,
      inFlight: this.#inFlight,
      healthy: this.healthy,
      engine: this.engine(now, staleMs),
      sent: this.#sent,
      failedBeforeFirstByte: this.#failedBeforeFirstByte,
      consecutiveFailures: this.health?.consecutiveFailures ?? 0,
      ejections: this.health?.ejections ?? 0,
      halfOpen: this.health?.halfOpen ?? false,
    };
  }

  close(): Promise<void> {
    return this.#limiter.close();
  }
}
