import { estimateTokens } from "@llm-scheduler/adapter-kit";
import { createScheduler, type Scheduler, type SchedulerUpdate } from "@llm-scheduler/core";
import { lowerOnlyPriority, requestIdOf, SCHEDULER_LIVE_KEYS, type Store } from "@llm-scheduler/core/kit";
import { type SchedulerMiddleware, schedulerMiddleware } from "@llm-scheduler/hono";
import { createPool, type HealthChange, type Pool, type ReplicaLedger } from "@llm-scheduler/pool";
import type { Context } from "hono";
import type { Caller } from "./auth.js";
import { ConfigError } from "./config/errors.js";
import type { ResolvedModel } from "./config/models-config.js";

/** What the gateway puts on the context before the scheduler's middleware runs. */
export interface GatewayVariables {
  caller: Caller;
  /** The parsed JSON body of a proxied request. */
  body: Record<string, unknown>;
}

/** Output tokens assumed for a body that asks for no bound (the adapters' default). */
const DEFAULT_MAX_TOKENS = 1_024;

/** The options fixed at creation: a change needs a restart. */
function fixedPart(options: ResolvedModel["scheduler"]): string {
  const fixed = Object.entries(options).filter(
    ([key]) => !(SCHEDULER_LIVE_KEYS as readonly string[]).includes(key),
  );
  return JSON.stringify(Object.fromEntries(fixed));
}

/** What a model's run time gets from the gateway beside its section. */
export interface ModelDeps {
  /** The scheduler's store (a `RedisStore`: one queue and limit across instances). @default memory */
  readonly store?: Store | undefined;
  /** The replica ledger shared with the other instances (Redis): no replica above its limit over all. */
  readonly ledger?: ReplicaLedger | undefined;
  /** Told when a replica is ejected or comes back. */
  readonly onHealth?: (model: string, change: HealthChange) => void;
}

/** The part of a section that makes the pool: a change builds a new pool over the same scheduler. */
function poolPart(config: ResolvedModel): string {
  return JSON.stringify([config.replicas, config.pool]);
}

/**
 * One model at run time: its scheduler (who goes next: queues, tenants, quotas; the Hono adapter's
 * middleware admits requests with it) and its pool of replicas over that scheduler (where each goes:
 * routing, per-replica limits, retries before the first byte, health, engine signals). `apply()` takes
 * a reloaded section without dropping a request.
 *
 * @example
 * const model = new ModelRuntime(resolved.models.get("llama")!);
 * await model.middleware(c, next); // then model.pool.forward(slot.permit, "/v1/chat/completions", init)
 */
export class ModelRuntime {
  readonly scheduler: Scheduler;
  readonly #deps: ModelDeps;
  #config: ResolvedModel;
  #middleware: SchedulerMiddleware;
  #pool: Pool;

  constructor(config: ResolvedModel, deps: ModelDeps = {}) {
    this.#config = config;
    this.#deps = deps;
    const { store } = deps;
    this.scheduler = createScheduler(store === undefined ? config.scheduler : { ...config.scheduler, store });
    this.#middleware = this.#middlewareFor(config);
    this.#pool = this.#poolFor(config);
  }

  /** The pool of the model's replicas, over {@link scheduler}. A reload that changes it makes a new one. */
  get pool(): Pool {
    return this.#pool;
  }

  /** The ids of the replicas ejected now. */
  ejected(): string[] {
    return this.#pool
      .metrics()
      .replicas.filter((replica) => !replica.healthy)
      .map((replica) => replica.id);
  }

  /** True while at least one replica is healthy. */
  get ready(): boolean {
    return this.#pool.metrics().replicas.some((replica) => replica.healthy);
  }

  #poolFor(config: ResolvedModel): Pool {
    const { maxConcurrency, ...section } = config.pool;
    const { ledger, onHealth } = this.#deps;
    const pool = createPool({
      replicas: config.replicas,
      scheduler: this.scheduler,
      ...section,
      ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
      ...(ledger === undefined ? {} : { shared: { ledger } }),
    });
    if (onHealth !== undefined) pool.onHealth((change) => onHealth(config.name, change));
    return pool;
  }

  get config(): ResolvedModel {
    return this.#config;
  }

  get middleware(): SchedulerMiddleware {
    return this.#middleware;
  }

  #middlewareFor(config: ResolvedModel): SchedulerMiddleware {
    const { scheduler } = this;
    type C = Context<{ Variables: GatewayVariables }>;
    return schedulerMiddleware({
      scheduler,
      // the key's priority is the ceiling; `x-priority` may only ask for less (400 if unknown)
      priority: (c) =>
        lowerOnlyPriority(
          scheduler.options,
          c.req.header("x-priority"),
          (c as unknown as C).get("caller").priority,
        ),
      tenant: (c) => (c as unknown as C).get("caller").tenant,
      // `x-request-id` when usable, else an id unique to this instance across models
      id: (c) => requestIdOf((name) => c.req.header(name)),
      tokens: (c) => estimateTokens((c as unknown as C).get("body"), DEFAULT_MAX_TOKENS),
      timeoutMs: config.timeoutMs === Number.POSITIVE_INFINITY ? undefined : config.timeoutMs,
    });
  }

  /**
   * Throws {@link ConfigError} when the new section changes what only a restart can (the fixed options);
   * call it for every model before applying any.
   */
  check(next: ResolvedModel): void {
    if (fixedPart(next.scheduler) !== fixedPart(this.#config.scheduler)) {
      throw new ConfigError(
        `models.${next.name}: a fixed option changed (e.g. defaultPriority); restart to apply it`,
      );
    }
  }

  /**
   * Applies a reloaded section: live options through `update()` (the limit stays the pool's), and, when
   * the replicas or the pool block changed, a new pool over the same scheduler (queues and places kept)
   * while the old one finishes what it serves (up to `drainTimeoutMs`) and stops its checks and scrapes.
   */
  apply(next: ResolvedModel, drainTimeoutMs: number): Promise<void> {
    const live: Record<string, unknown> = {};
    for (const key of SCHEDULER_LIVE_KEYS) {
      const value = (next.scheduler as Record<string, unknown>)[key];
      if (value !== undefined && key !== "maxConcurrency") live[key] = value;
    }
    const settled = [this.scheduler.update(live as SchedulerUpdate)];
    if (poolPart(next) !== poolPart(this.#config)) {
      const old = this.#pool;
      this.#pool = this.#poolFor(next);
      settled.push(old.close({ drain: true, timeoutMs: drainTimeoutMs }));
    }
    if (next.timeoutMs !== this.#config.timeoutMs) this.#middleware = this.#middlewareFor(next);
    this.#config = next;
    return Promise.all(settled).then(() => undefined);
  }

  /** Lets running requests finish (up to `timeoutMs`), refuses the queued ones, stops the pool's timers. */
  async close(timeoutMs: number): Promise<void> {
    await this.scheduler.close({ drain: true, timeoutMs });
    await this.#pool.close();
  }
}
