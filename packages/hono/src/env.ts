import type { RequestSlot } from "@llm-scheduler/adapter-kit";

/**
 * What the middleware sets on the context: `c.get("llmScheduler")`.
 *
 * @example
 * type MyEnv = { Variables: LlmSchedulerVariables & { user: string } };
 */
export interface LlmSchedulerVariables {
  /**
   * The request's slot: `signal` (aborts when the client goes away, on run timeout and on close; pass it
   * to the upstream fetch), `permit`, `priority`, `tenant`, `id` and `waitMs`.
   */
  llmScheduler: RequestSlot;
}

/**
 * A Hono environment with the middleware's variables; use it as `new Hono<LlmSchedulerEnv>()`.
 *
 * @example
 * const app = new Hono<LlmSchedulerEnv>();
 * app.get("/v1/models", (c) => c.json({ waited: c.get("llmScheduler").waitMs }));
 */
export interface LlmSchedulerEnv {
  Variables: LlmSchedulerVariables;
}
