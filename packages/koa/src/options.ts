import { type AdapterOptions, adapterResolver, type RejectionHandler } from "@llm-scheduler/adapter-kit";
import type { Context } from "koa";

/**
 * Answers a rejected request in place of the default JSON error ({@link RejectionHandler}), by setting
 * `ctx.status`, headers and `ctx.body` as any Koa middleware would. Throw to use Koa's error handling.
 */
export type KoaRejectionHandler = RejectionHandler<[ctx: Context]>;

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
 * The resolver; the token estimate reads the body a JSON parser (e.g. `@koa/bodyparser`) placed before
 * this one left.
 */
export const resolveKoaOptions = adapterResolver<{
  readonly middleware: { readonly request: Context; readonly onRejected: KoaRejectionHandler };
}>({ middleware: (ctx) => (ctx.request as { body?: unknown } | undefined)?.body });
