import { type LatencyOptions, type ResolvedLatencyOptions, resolveLatencyOptions } from "./options.js";

/**
 * The timing of a simulated LLM server, as pure functions of the load. The HTTP server waits these
 * numbers on real timers; a virtual-time simulator can add them to its own clock.
 *
 * With `a` the number of busy sequences (this one included) clamped to `[1, parallel]`:
 *
 * ```text
 * load(a)             = 1 + slowdown * (a - 1) / (parallel - 1)     (1 when parallel = 1)
 * ttftMs(p, a)        = (ttftMs + prefillMsPerToken * p) * load(a)
 * tokenMs(a)          = tokenMs * load(a)
 * requestMs(p, n, a)  = ttftMs(p, a) + (n - 1) * tokenMs(a)
 * ```
 *
 * The first token comes at `ttftMs` (prefill produces it); every later token comes `tokenMs` after the
 * one before, with `a` read again at each step.
 */
export interface LatencyModel {
  /** The resolved options the model was built from. */
  readonly options: ResolvedLatencyOptions;
  /** The slowdown factor `load(active)`: 1 alone, `1 + slowdown` with a full batch. */
  load(active: number): number;
  /** Milliseconds from admission to the first token for a prompt of `promptTokens` tokens. */
  ttftMs(promptTokens: number, active: number): number;
  /** Milliseconds to decode one token while `active` sequences share the batch. */
  tokenMs(active: number): number;
  /** Milliseconds for a whole request of `completionTokens` tokens, assuming `active` stays the same. */
  requestMs(promptTokens: number, completionTokens: number, active: number): number;
}

/**
 * Builds the latency model from options (defaults as in {@link LatencyOptions}).
 *
 * @example
 * const model = createLatencyModel({ parallel: 4, ttftMs: 40, prefillMsPerToken: 0.5, tokenMs: 10, slowdown: 1 });
 * model.ttftMs(100, 1); // 90: 40 + 0.5 * 100, alone
 * model.tokenMs(4); // 20: a full batch doubles the step time
 * model.requestMs(100, 10, 1); // 180: 90 + 9 * 10
 */
export function createLatencyModel(options: LatencyOptions = {}): LatencyModel {
  const resolved = resolveLatencyOptions(options);
  const { parallel, slowdown } = resolved;
  const load = (active: number): number => {
    if (parallel === 1) return 1;
    const busy = Math.min(Math.max(Number.isFinite(active) ? active : 1, 1), parallel);
    return 1 + (slowdown * (busy - 1)) / (parallel - 1);
  };
  const ttftMs = (promptTokens: number, active: number): number =>
    (resolved.ttftMs + resolved.prefillMsPerToken * Math.max(0, promptTokens)) * load(active);
  const tokenMs = (active: number): number => resolved.tokenMs * load(active);
  return {
    options: resolved,
    load,
    ttftMs,
    tokenMs,
    requestMs: (promptTokens, completionTokens, active) =>
      ttftMs(promptTokens, active) + Math.max(0, completionTokens - 1) * tokenMs(active),
  };
}
