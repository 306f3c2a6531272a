import type { Clock } from "@llm-scheduler/core";
import { createRouter, type ReplicaState, type Router } from "@llm-scheduler/pool";
import { createLatencyModel, type Random, type ResolvedLatencyOptions } from "@llm-scheduler/upstream-sim";
import { PrefixCache } from "./prefix-cache.js";
import type { ResolvedPool, ResolvedReplica } from "./scenario.js";
import { type GenerationJob, type GenerationTarget, VirtualUpstream } from "./virtual-upstream.js";

/** What one replica of a pool did in a run. */
export interface ReplicaResult {
  readonly id: string;
  readonly limit: number;
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
  inFlight = 0;
  peakInFlight = 0;
  started = 0;
  completed = 0;

  constructor(options: ResolvedReplica, server: VirtualUpstream, cache: PrefixCache | undefined) {
    this.options = options;
    this.server = server;
    this.cache = cache;
  }

  state(): ReplicaState {
    const { server, options } = this;
    return {
      id: options.id,
      limit: options.limit,
      inFlight: this.inFlight,
      healthy: true,
      engine: { waiting: server.waiting, running: server.active, kvCacheUsage: undefined },
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

  constructor(pool: ResolvedPool, upstream: ResolvedLatencyOptions, clock: Clock, random: Random) {
    this.#replicas = pool.replicas.map((options) => {
      const cache =
        options.cacheTokens > 0 ? new PrefixCache(options.cacheTokens, pool.blockTokens) : undefined;
      return new Replica(
        options,
        new VirtualUpstream(replicaModel(upstream, options), clock, undefined, cache),
        cache,
      );
    });
    this.#byId = new Map(this.#replicas.map((replica) => [replica.options.id, replica]));
    const { loadFactor, virtualNodes } = pool;
    this.#router = createRouter(pool.routing, { loadFactor, virtualNodes, random });
  }

  generate(job: GenerationJob): Promise<void> {
    if (job.signal.aborted) return Promise.reject(job.signal.reason);
    const states = this.#replicas.map((replica) => replica.state());
    const id = this.#router.pick(states, job.prefix?.key);
    const replica = id === null ? undefined : this.#byId.get(id);
    if (replica === undefined) return Promise.reject(new NoReplicaAvailable());
    replica.inFlight++;
    replica.peakInFlight = Math.max(replica.peakInFlight, replica.inFlight);
    replica.started++;
    return replica.server.generate(job).then(
      () => {
        replica.inFlight--;
        replica.completed++;
      },
      (error: unknown) => {
        replica.inFlight--;
        throw error;
      },
    );
  }

  /** What each replica did so far. */
  results(): ReplicaResult[] {
    return this.#replicas.map(({ options, started, completed, peakInFlight, cache }) => ({
      id: options.id,
      limit: options.limit,
      speed: options.speed,
      started,
      completed,
      peakInFlight,
      prefixTokens: cache?.askedTokens ?? 0,
      prefixHitTokens: cache?.hitTokens ?? 0,
    }));
  }
}
