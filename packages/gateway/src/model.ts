import { estimateTokens } from "@llm-scheduler/adapter-kit";
import { createScheduler, type Scheduler, type SchedulerUpdate } from "@llm-scheduler/core";
import { lowerOnlyPriority, requestIdOf, SCHEDULER_LIVE_KEYS, type Store } from "@llm-scheduler/core/kit";
import { type SchedulerMiddleware, schedulerMiddleware } from "@llm-scheduler/hono";
import type { Context } from "hono";
import type { Caller } from "./auth.js";
import { ConfigError } from "./config/errors.js";
import type { ResolvedModel } from "./config/models-config.js";
import { LeastLoaded, type UpstreamPicker } from "./upstreams/picker.js";

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

/**
 * One model at run time: its scheduler (its queues, tenants and limit), the Hono adapter's middleware
 * on it, and the picker of its servers. `update()` applies a reloaded section without dropping a request.
 *
 * @example
 * const model = new ModelRuntime(resolved.models.get("llama")!);
 * await model.middleware(c, next);
 */
export class ModelRuntime {
  readonly scheduler: Scheduler;
  #config: ResolvedModel;
  #middleware: SchedulerMiddleware;
  #picker: LeastLoaded;

  constructor(config: ResolvedModel, store?: Store) {
    this.#config = config;
    this.scheduler = createScheduler(store === undefined ? config.scheduler : { ...config.scheduler, store });
    this.#middleware = this.#middlewareFor(config);
    this.#picker = new LeastLoaded(config.upstreams);
  }

  get config(): ResolvedModel {
    return this.#config;
  }

  get middleware(): SchedulerMiddleware {
    return this.#middleware;
  }

  get picker(): UpstreamPicker {
    return this.#picker;
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

  /** Applies a reloaded section: live options through `update()`, a new picker keeping in-flight counts. */
  apply(next: ResolvedModel): Promise<void> {
    const live: Record<string, unknown> = {};
    for (const key of SCHEDULER_LIVE_KEYS) {
      const value = (next.scheduler as Record<string, unknown>)[key];
      if (value !== undefined) live[key] = value;
    }
    const settled = this.scheduler.update(live as SchedulerUpdate);
    if (next.upstreams.join(" ") !== this.#picker.upstreams.join(" ")) {
      this.#picker = new LeastLoaded(next.upstreams, this.#picker.counts);
    }
    if (next.timeoutMs !== this.#config.timeoutMs) this.#middleware = this.#middlewareFor(next);
    this.#config = next;
    return settled;
  }
}
