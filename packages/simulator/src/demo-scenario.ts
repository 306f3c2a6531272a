import type { Scenario } from "./scenario.js";

/** Options of {@link demoScenario}. */
export interface DemoScenarioOptions {
  /** How long chat users arrive; the batch flood is sized to keep the server busy about this long. @default 15_000 */
  readonly durationMs?: number;
  /** @default 1 */
  readonly seed?: number;
}

/**
 * The workload `pnpm demo` replays: two tenants flood a server of 8 sequences with a few hundred long
 * batch generations (the second one joining a little later), while chat users arrive at random (3 per
 * second) with short prompts and a front end that gives up after 5 s without a first token and
 * retries twice. The batch flood is sized so that the server stays busy for about `durationMs`.
 *
 * @example
 * const scenario = resolveScenario(demoScenario({ durationMs: 10_000 }));
 */
export function demoScenario(options: DemoScenarioOptions = {}): Scenario {
  const durationMs = options.durationMs ?? 15_000;
  // One batch item takes about 0.6 s with a full batch; 8 sequences finish about 13 per second.
  const items = Math.max(10, Math.round((13 * durationMs) / 1_000));
  const first = Math.round(items * 0.6);
  const sizes = { promptTokens: { min: 400, max: 800 }, maxTokens: { min: 40, max: 80 } };
  return {
    name: "demo",
    description: "A batch flood from two tenants and Poisson chat users sharing one LLM server.",
    seed: options.seed ?? 1,
    durationMs,
    upstream: { parallel: 8, ttftMs: 40, prefillMsPerToken: 0.05, tokenMs: 4, slowdown: 1 },
    gateway: { maxConcurrency: 8 },
    scheduler: {
      priorities: {
        interactive: { weight: 5, reserved: 2, queueTimeoutMs: 5_000, maxQueue: 1_000 },
        batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue: 100_000, maxWaitMs: 60_000 },
      },
    },
    chat: {
      ratePerSec: 3,
      tenant: "chat-app",
      promptTokens: { min: 20, max: 200 },
      maxTokens: { min: 16, max: 48 },
      timeoutMs: 5_000,
      retries: 2,
      retryDelayMs: 250,
    },
    batch: {
      tenants: [
        { name: "indexer", items: first, startMs: 0, ...sizes },
        { name: "evals", items: items - first, startMs: Math.round(durationMs * 0.1), ...sizes },
      ],
    },
    goal: { interactiveWaitP95Ms: 250 },
  };
}
