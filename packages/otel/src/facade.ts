import type { Scheduler } from "@llm-scheduler/core";

/** What the facade takes from a traced scheduler: the three calls that make requests. */
interface Traced {
  run: Scheduler["run"];
  acquire: Scheduler["acquire"];
  tryAcquire: Scheduler["tryAcquire"];
}

/**
 * `scheduler` as the adapters see it, with `run`, `acquire` and `tryAcquire` taken from `traced`.
 * Everything else (`options`, `metrics()`, `on()`, `close()`, ...) is the scheduler's own, bound to it
 * (its private fields need the real object as `this`); bound methods are made once.
 */
export function facadeOf(scheduler: Scheduler, traced: Traced): Scheduler {
  const own: Record<PropertyKey, unknown> = {
    run: traced.run.bind(traced),
    acquire: traced.acquire.bind(traced),
    tryAcquire: traced.tryAcquire.bind(traced),
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
