import type { Permit, Scheduler } from "@llm-scheduler/core";
import type { HeaderReader } from "@llm-scheduler/core/kit";

/**
 * The key under which a scheduler (or a facade of one, such as `@llm-scheduler/otel`'s
 * `traced.scheduler`) may offer `within(permit, fn)`: run the rest of a request's chain inside a
 * context of its own, so the handler's upstream call becomes a child of the request's span. A
 * registered symbol, so that neither side depends on the other.
 */
export const WITHIN: unique symbol = Symbol.for("llm-scheduler.within") as never;

/**
 * The key under which a scheduler facade may offer `join(header, fn)`: run `fn` (getting the request
 * its slot) inside the trace the client sent in its headers (`traceparent`), so the request's span
 * joins it. `acquireSlot()` uses it.
 */
export const JOIN: unique symbol = Symbol.for("llm-scheduler.join") as never;

/** Runs `fn` inside the context the request's headers carry. */
export type Join = <T>(header: HeaderReader, fn: () => T) => T;

/**
 * The scheduler's `join`, or `undefined` for a plain scheduler.
 *
 * @example
 * const join = joinOf(scheduler);
 * const slot = join === undefined ? acquire() : join(header, acquire);
 */
export function joinOf(scheduler: Scheduler): Join | undefined {
  const join = (scheduler as unknown as { [JOIN]?: unknown })[JOIN];
  return typeof join === "function" ? (join as Join) : undefined;
}

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
