import {
  type AdapterOptions,
  type Awaitable,
  type ResolvedAdapterOptions,
  resolveAdapterOptions,
} from "@llm-scheduler/adapter-kit";
import type { SchedulerError } from "@llm-scheduler/core";
import type { Context } from "koa";

/**
 * Answers a rejected request in place of the default JSON error, by setting `ctx.status`, headers and
 * `ctx.body` as any Koa middleware would. `error.code` says why (`QUEUE_FULL`, `QUEUE_TIMEOUT`, `CLOSED`,
 * `INVALID_PRIORITY`, …) and `error.retryAfterMs` when to come back. Throw to use Koa's error handling.
 */
export type KoaRejectionHandler = (error: SchedulerError, ctx: Context) => Awaitable<void>;

/**
 * Options of `schedulerMiddleware()` for Koa. The mapping functions (`priority`, `tenant`, `id`, `cost`)
 * receive the Koa `ctx`, may be async, and may throw: a `SchedulerError` is answered as a rejection,
 * anything else is rethrown to Koa's error handling.
 *
 * @example
 * const options: KoaSchedulerOptions = {
 *   scheduler,
 *   priority: (ctx) => (ctx.state.user?.plan === "batch" ? "batch" : "interactive"),
 *   // `teams`: the keys you issued -> tenant; never the raw key as the tenant
 *   tenant: (ctx) => teams.get(ctx.get("x-api-key")) ?? "unknown-key",
 * };
 */
export type KoaSchedulerOptions = AdapterOptions<Context, KoaRejectionHandler>;

/**
 * Validates the options up front (throws `INVALID_OPTION`, naming an unknown key and the nearest known
 * one) and fills in the defaults.
 *
 * @example
 * const config = resolveKoaOptions({ scheduler, timeoutMs: 60_000 });
 */
export function resolveKoaOptions(
  options?: KoaSchedulerOptions,
): ResolvedAdapterOptions<Context, KoaRejectionHandler> {
  // The token estimate reads the body a JSON parser (e.g. `@koa/bodyparser`) placed before this one left.
  return resolveAdapterOptions<Context, KoaRejectionHandler>(
    options,
    (ctx) => (ctx.request as { body?: unknown } | undefined)?.body,
  );
}
