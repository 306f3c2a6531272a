import { type Clock, createScheduler, type Permit, type Scheduler } from "@llm-scheduler/core";
import {
  createRouter,
  engineLoad,
  type ReplicaState,
  type Router,
  relativeSpeeds,
  SpeedMeter,
} from "@llm-scheduler/pool";
import { createLatencyModel, type Random, type ResolvedLatencyOptions } from "@llm-scheduler/upstream-sim";
import { PrefixCache } from "./prefix-cache.js";
import type { ResolvedPool, ResolvedPoolAdaptive, ResolvedReplica } from "./scenario-resolve.js";
import { type GenerationJob, type GenerationTarget, VirtualUpstream } from "./virtual-upstream.js";

/** What one replica of a pool did in a run. */
export interface ReplicaResult {
  readonly id: string;
  /** Its limit at the end (an adaptive one: where it stood then). */
  readonly limit: number;
  /** An adaptive limit's lowest and highest over the run (the fixed limit otherwise). */
  readonly lowestLimit: number;
  readonly highestLimit: number;
  readonly speed: number;
  /** Requests the router sent to it. */
  readonly started: number;
  /** Of those, the ones it answered in full. */
  readonly completed: number;
  /** The most requests it had in flight at once (never above its limit). */
  readonly peakInFlight: number;
  /** Shared-prefix tokens its requests brought, and how many of them its prefix cache already held. */
  readonly prefixTokens: number;
  readonly prefixHitTokens: number;
}

/** The pool's answer when no replica has room (the scheduler's limit is above the replicas' sum). */
export class NoReplicaAvailable extends Error {
  readonly status = 503;
  constructor() {
    super("503 Service Unavailable: no replica of the pool has room");
    this.name = "NoReplicaAvailable";
  }
}

class Replica {
  readonly options: ResolvedReplica;
  readonly server: VirtualUpstream;
  readonly cache: PrefixCache | undefined;
  /** An adaptive limit: a core scheduler used through `tryAcquire`, as the pool's replicas do. */
  readonly limiter: Scheduler | undefined;
  /** Its streaming speed, as the pool measures it; `undefined` with `pool.speed: false`. */
  readonly meter: SpeedMeter | undefined;
  inFlight = 0;
  peakInFlight = 0;
  started = 0;
  completed = 0;
  lowestLimit: number;
  highestLimit: number;

  constructor(
    options: ResolvedReplica,
    server: VirtualUpstream,
    cache: PrefixCache | undefined,
    limiter: Scheduler | undefined,
    meter: SpeedMeter | undefined,
  ) {
    this.options = options;
    this.meter = meter;
    this.server = server;
    this.cache = cache;
    this.limiter = limiter;
    this.lowestLimit = this.highestLimit = options.limit;
  }

  get limit(): number {
    return this.limiter?.maxConcurrency ?? this.options.limit;
  }

  state(speed: number | undefined): ReplicaState {
    const { server, options } = this;
    return {
      id: options.id,
      limit: this.limit,
      inFlight: this.inFlight,
      healthy: true,
      engine: { waiting: server.waiting, running: server.active, kvCacheUsage: undefined },
      speed,
    };
  }
}

/** One replica's timings: `upstream`'s, its own number of sequences, every duration over its speed. */
function replicaModel(upstream: ResolvedLatencyOptions, replica: ResolvedReplica) {
  const { speed } = replica;
  return createLatencyModel({
    ...upstream,
    parallel: replica.parallel,
    ttftMs: upstream.ttftMs / speed,
    prefillMsPerToken: upstream.prefillMsPerToken / speed,
    tokenMs: upstream.tokenMs / speed,
  });
}

/**
 * Replicas of the virtual server behind one of `@llm-scheduler/pool`'s routers: each request goes where
 * the router picks (by its shared prefix's key), is counted in flight there until it ends, and runs on
 * that replica's own sequences and prefix cache. The scheduler in front still decides who goes next.
 *
 * @example
 * const pool = new VirtualPool(scenario.pool!, scenario.upstream, clock, createRandom(1));
 * await pool.generate({ promptTokens: 4_100, completionTokens: 50, signal, prefix: { key: "user-3", tokens: 4_000 } });
 */
export class VirtualPool implements GenerationTarget {
  readonly #replicas: Replica[];
  readonly #byId: Map<string, Replica>;
  readonly #router: Router;
  readonly #clock: Clock;
  readonly #adaptive: ResolvedPoolAdaptive | undefined;
  /** `pool.speed.minFactor`; `undefined` with `pool.speed: false`. */
  readonly #minSpeed: number | undefined;
  /** With adaptive limits, requests that found no replica with room, in arrival order. */
  readonly #waiting: Array<{ job: GenerationJob; resolve: () => void; reject: (error: unknown) => void }> =
    [];
  readonly #capacityListeners: Array<(capacity: number) => void> = [];
  #closed = false;

  constructor(pool: ResolvedPool, upstream: ResolvedLatencyOptions, clock: Clock, random: Random) {
    const adaptive = pool.adaptive;
    this.#clock = clock;
    this.#adaptive = adaptive;
    this.#minSpeed = pool.speed?.minFactor;
    this.#replicas = pool.replicas.map((options) => {
      const cache =
        options.cacheTokens > 0 ? new PrefixCache(options.cacheTokens, pool.blockTokens) : undefined;
      const limiter =
        adaptive === undefined
          ? undefined
          : createScheduler({
              clock,
              maxConcurrency: { initial: options.limit, min: adaptive.min, max: adaptive.max },
              adaptive: adaptive.tunables,
            });
      const replica = new Replica(
        options,
        new VirtualUpstream(replicaModel(upstream, options), clock, undefined, cache),
        cache,
        limiter,
        pool.speed === undefined ? undefined : new SpeedMeter(pool.speed),
      );
      limiter?.on("limit", ({ limit }) => this.#limitMoved(replica, limit));
      return replica;
    });
    this.#byId = new Map(this.#replicas.map((replica) => [replica.options.id, replica]));
    const { loadFactor, virtualNodes } = pool;
    this.#router = createRouter(pool.routing, { loadFactor, virtualNodes, random });
    if (adaptive?.engine !== undefined) this.#scrape();
  }

  /** The replicas' limits together (what the gateway's limit follows with adaptive limits). */
  get capacity(): number {
    return this.#replicas.reduce((sum, replica) => sum + replica.limit, 0);
  }

  /** Calls `listener` with {@link capacity} each time an adaptive replica limit moves. */
  onCapacity(listener: (capacity: number) => void): void {
    this.#capacityListeners.push(listener);
  }

  generate(job: GenerationJob): Promise<void> {
    if (job.signal.aborted) return Promise.reject(job.signal.reason);
    const placed = this.#place(job);
    if (placed !== undefined) return placed;
    if (this.#adaptive === undefined) return Promise.reject(new NoReplicaAvailable());
    // As the pool's placement: wait (in arrival order) for a replica with room.
    return new Promise<void>((resolve, reject) => {
      const waiter = { job, resolve, reject };
      this.#waiting.push(waiter);
      job.signal.addEventListener(
        "abort",
        () => {
          const index = this.#waiting.indexOf(waiter);
          if (index === -1) return;
          this.#waiting.splice(index, 1);
          reject(job.signal.reason);
        },
        { once: true },
      );
    });
  }

  /** Stops the engine readings (the run is over). */
  close(): void {
    this.#closed = true;
  }

  /** Runs `job` on the replica the router picks, or `undefined` when none has room. */
  #place(job: GenerationJob): Promise<void> | undefined {
    const minSpeed = this.#minSpeed;
    const speeds =
      minSpeed === undefined
        ? undefined
        : relativeSpeeds(
            this.#replicas.map((replica) => replica.meter?.rate),
            minSpeed,
          );
    const states = this.#replicas.map((replica, index) => replica.state(speeds?.[index]));
    const id = this.#router.pick(states, job.prefix?.key);
    const replica = id === null ? undefined : this.#byId.get(id);
    if (replica === undefined) return undefined;
    let slot: Permit | undefined;
    if (replica.limiter !== undefined) {
      slot = replica.limiter.tryAcquire();
      if (slot === undefined) return undefined;
    }
    replica.inFlight++;
    replica.peakInFlight = Math.max(replica.peakInFlight, replica.inFlight);
    replica.started++;
    // As the pool measures speed: tokens after the first over the (virtual) ms since the first.
    let firstAt: number | undefined;
    const measured: GenerationJob =
      replica.meter === undefined
        ? job
        : {
            ...job,
            onFirstToken: () => {
              firstAt = this.#clock.now();
              job.onFirstToken?.();
            },
          };
    return replica.server.generate(measured).then(
      () => {
        if (firstAt !== undefined)
          replica.meter?.record(job.completionTokens - 1, this.#clock.now() - firstAt);
        replica.inFlight--;
        replica.completed++;
        slot?.release();
        this.#wake();
      },
      (error: unknown) => {
        replica.inFlight--;
        slot?.release(error);
        this.#wake();
        throw error;
      },
    );
  }

  /** Places the waiting requests that fit now, in arrival order. */
  #wake(): void {
    for (let index = 0; index < this.#waiting.length; ) {
      const waiter = this.#waiting[index]!;
      const placed = this.#place(waiter.job);
      if (placed === undefined) {
        index++;
        continue;
      }
      this.#waiting.splice(index, 1);
      placed.then(waiter.resolve, waiter.reject);
    }
  }

  #limitMoved(replica: Replica, limit: number): void {
    replica.lowestLimit = Math.min(replica.lowestLimit, limit);
    replica.highestLimit = Math.max(replica.highestLimit, limit);
    const capacity = this.capacity;
    for (const listener of this.#capacityListeners) listener(capacity);
    this.#wake();
  }

  /** Every `scrapeMs`, each engine's queue (and batch) goes to its replica's limit, as the pool's scraper does. */
  #scrape(): void {
    const { scrapeMs, engine } = this.#adaptive!;
    for (const replica of this.#replicas) {
      const { waiting, active } = replica.server;
      replica.limiter?.upstreamLoad(
        engineLoad({ waiting, running: active, kvCacheUsage: undefined }, engine!),
      );
    }
    if (!this.#closed) this.#clock.setTimer(() => this.#scrape(), scrapeMs);
  }

  /** What each replica did so far. */
  results(): ReplicaResult[] {
    return this.#replicas.map((replica) => ({
      id: replica.options.id,
      limit: replica.limit,
      lowestLimit: replica.lowestLimit,
      highestLimit: replica.highestLimit,
      speed: replica.options.speed,
      started: replica.started,
      completed: replica.completed,
      peakInFlight: replica.peakInFlight,
      prefixTokens: replica.cache?.askedTokens ?? 0,
      prefixHitTokens: replica.cache?.hitTokens ?? 0,
    }));
  }
}
