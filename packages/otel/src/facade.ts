import type { Permit, Scheduler } from "@llm-scheduler/core";
import { joinByReader } from "./join.js";

/** What the facade takes from a traced scheduler: the three calls that make requests, and `within`. */
interface Traced {
  run: Scheduler["run"];
  acquire: Scheduler["acquire"];
  tryAcquire: Scheduler["tryAcquire"];
  within<T>(permit: Permit, fn: () => T): T;
}

/** Where the adapters look for `join(header, fn)` (`@llm-scheduler/adapter-kit`'s `JOIN`). */
const JOIN = Symbol.for("llm-scheduler.join");

/**
 * Where the adapters look for `within(permit, next)` (`@llm-scheduler/adapter-kit`'s `WITHIN`): they run
 * the rest of the chain through it, so a handler's upstream call is a child of the request span.
 */
const WITHIN = Symbol.for("llm-scheduler.within");

/**
 * `scheduler` as the adapters see it, with `run`, `acquire` and `tryAcquire` taken from `traced`, and
 * `traced.within` and {@link joinByReader} offered under the adapters' `WITHIN` and `JOIN` keys.
 * Everything else (`options`, `metrics()`, `on()`, `close()`, ...) is the scheduler's own, bound to it
 * (its private fields need the real object as `this`); bound methods are made once.
 */
export function facadeOf(scheduler: Scheduler, traced: Traced): Scheduler {
  const own: Record<PropertyKey, unknown> = {
    run: traced.run.bind(traced),
    acquire: traced.acquire.bind(traced),
    tryAcquire: traced.tryAcquire.bind(traced),
    [WITHIN]: traced.within.bind(traced),
    [JOIN]: joinByReader,
  };
  return new Proxy(scheduler, {
    get(target, key) {
      if (key in own) return own[key];
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(target);
      own[key] = bound;
      return bound;
    },
  });
}
