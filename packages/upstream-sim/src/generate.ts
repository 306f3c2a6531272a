import type { LatencyModel } from "./latency-model.js";
import type { FinishReason } from "./openai-format.js";
import { waitUntil } from "./sleep.js";

/** What one admitted request will generate, decided before it starts. */
export interface GenerationPlan {
  readonly promptTokens: number;
  /** Prompt tokens to prefill: those not found in the prefix cache. */
  readonly prefillTokens: number;
  readonly completionTokens: number;
  readonly finishReason: FinishReason;
  /** Multiplies every delay: the server's speed factor, times `slowFactor` for a `slow` fault. */
  readonly delayFactor: number;
  /** Gives the text of the next token. */
  readonly nextToken: () => string;
}

/** Where generated tokens go: an SSE stream or a buffer answered at the end. */
export interface TokenSink {
  token(text: string): void;
  finish(finishReason: FinishReason, completionTokens: number): void;
}

/**
 * Runs one sequence on real timers: the first token after `model.ttftMs`, then one token every
 * `model.tokenMs`, reading the number of busy sequences again at every step. Each deadline is set from
 * the previous one, so timer lateness does not pile up. Rejects when the signal aborts.
 *
 * @example
 * await generate(plan, model, () => slots.active, sink, signal);
 */
export async function generate(
  plan: GenerationPlan,
  model: LatencyModel,
  active: () => number,
  sink: TokenSink,
  signal: AbortSignal,
): Promise<void> {
  let deadline = performance.now() + model.ttftMs(plan.prefillTokens, active()) * plan.delayFactor;
  for (let index = 0; index < plan.completionTokens; index += 1) {
    if (index > 0) deadline += model.tokenMs(active()) * plan.delayFactor;
    await waitUntil(deadline, signal);
    sink.token(plan.nextToken());
  }
  if (plan.completionTokens === 0) await waitUntil(deadline, signal);
  sink.finish(plan.finishReason, plan.completionTokens);
}
