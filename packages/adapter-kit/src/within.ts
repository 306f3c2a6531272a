import type { Permit, Scheduler } from "@llm-scheduler/core";

/**
 * The key under which a scheduler (or a facade of one, such as `@llm-scheduler/otel`'s
 * `traced.scheduler`) may offer `within(permit, fn)`: run the rest of a request's chain inside a
 * context of its own, so the handler's upstream call becomes a child of the request's span. A
 * registered symbol, so that neither side depends on the other.
 */
export const WITHIN: unique symbol = Symbol.for("llm-scheduler.within") as never;

/** Runs `fn` (the rest of the chain) for the request holding `permit`. */
export type Within = <T>(permit: Permit, fn: () => T) => T;

/**
 * The scheduler's `within`, or `undefined` for a plain scheduler: adapters look it up once, when the
 * middleware is made, and call `next()` directly when there is none.
 *
 * @example
 * const within = withinOf(config.scheduler);
 * const done = within === undefined ? next() : within(slot.permit, next);
 */
export function withinOf(scheduler: Scheduler): Within | undefined {
  const within = (scheduler as unknown as { [WITHIN]?: unknown })[WITHIN];
  return typeof within === "function" ? (within as Within) : undefined;
}
