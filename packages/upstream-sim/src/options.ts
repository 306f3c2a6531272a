/**
 * Options of the simulated server and of its latency model, declared once: types, checks, defaults and
 * the README table come from here. A wrong option fails at start-up with `INVALID_OPTION` and a
 * message such as ``Expected `parallel` to be an integer from 1 to 100000, got `0` (number)``.
 */
import {
  type InferShape,
  integer,
  invalidOption,
  number,
  object,
  type Resolved,
  resolveShape,
  string,
  withDefaults,
} from "@llm-scheduler/core/kit";
import { type FaultKind, faultKinds } from "./fault-kinds.js";
import { FAULT_RULES } from "./fault-rules.js";
import { MAX_TOKENS } from "./request-parse.js";

/** Every number has a range: wide enough for any real server, narrow enough to catch a slipped exponent. */
const WEEK_MS = 604_800_000;

/** The latency model's options, shared by the HTTP server and by virtual-time simulators. */
export const LATENCY = {
  parallel: integer(1, 100_000, {
    default: 4,
    doc: "sequences served at once, like vLLM's `--max-num-seqs` or `OLLAMA_NUM_PARALLEL`",
  }),
  ttftMs: number(0, WEEK_MS, { default: 50, doc: "base time to first token, ms" }),
  prefillMsPerToken: number(0, 60_000, { default: 0.2, doc: "prefill time per prompt token, ms" }),
  tokenMs: number(0, WEEK_MS, { default: 20, doc: "decode time per token when alone, ms" }),
  slowdown: number(0, 1_000, {
    default: 1,
    doc: "extra step time with a full batch (`1` = twice as slow, `0` = none)",
  }),
};

const rate = (kind: string) => number(0, 1, { default: 0, doc: `share of requests answered with ${kind}` });

/** The share of requests that get each fault (drawn from the seeded generator in arrival order). */
const FAULTS = {
  429: rate("429 and `Retry-After`, taking no sequence"),
  500: rate("500, taking no sequence"),
  slow: rate("every delay multiplied by `slowFactor`"),
  hang: rate("a sequence held and no answer until the client goes away"),
};

/** The options of `startUpstream()`: the latency model's and the server's own. */
export const UPSTREAM = {
  port: integer(0, 65_535, {
    default: 0,
    doc: "port to listen on; `0` picks a free one (`sim.port` tells which)",
  }),
  host: string(Number.POSITIVE_INFINITY, { default: "127.0.0.1", doc: "host to listen on" }),
  model: string(Number.POSITIVE_INFINITY, {
    default: "sim-model",
    doc: "model name listed by `/v1/models` and returned when a request names none",
  }),
  ...LATENCY,
  defaultMaxTokens: integer(1, MAX_TOKENS, {
    default: 64,
    doc: "tokens generated when a request sets neither `max_tokens` nor `max_completion_tokens`",
  }),
  maxQueued: integer(0, 1e9, {
    infinite: true,
    default: Number.POSITIVE_INFINITY,
    doc: "requests allowed to wait for a sequence; beyond it 503 at once (like `OLLAMA_MAX_QUEUE`)",
  }),
  seed: integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, {
    default: 42,
    shownRange: "a safe integer",
    doc: "seed of fault draws and filler words",
  }),
  faults: object(FAULTS, {
    shownRange: "`{ 429?, 500?, slow?, hang? }`, each 0 to 1, summing to at most 1",
    shownDefault: "`{}`",
    doc: "share of requests per fault, drawn from the seeded generator in arrival order",
  }),
  retryAfterSeconds: number(0, 86_400, {
    default: 1,
    doc: "`Retry-After` of 429 and 503 (also sent in ms as `retry-after-ms`)",
  }),
  slowFactor: number(1, 1_000, { default: 5, doc: "factor on every delay of a `slow` request" }),
  faultRules: FAULT_RULES,
  prefixCacheBlocks: integer(0, 10_000_000, {
    default: 0,
    doc: "KV blocks in the prefix cache (least recently used evicted first); `0` turns it off",
  }),
  blockTokens: integer(1, 1_024, { default: 16, doc: "tokens per KV block (vLLM's `--block-size`)" }),
};

/** Options of the latency model, shared by the HTTP server and by virtual-time simulators. */
export type LatencyOptions = InferShape<typeof LATENCY>;
/** Latency options with every default filled in. */
export type ResolvedLatencyOptions = Resolved<typeof LATENCY>;
/**
 * The share of requests that get each fault, each between 0 and 1; together at most 1.
 *
 * @example
 * const rates: FaultRates = { 429: 0.05, slow: 0.1 };
 */
export type FaultRates = InferShape<typeof FAULTS>;
/** Options of {@link startUpstream}. */
export type UpstreamOptions = InferShape<typeof UPSTREAM>;
/** Server options with every default filled in. */
export type ResolvedUpstreamOptions = ReturnType<typeof resolveUpstreamOptions>;

/**
 * Fills in and validates latency options; other keys are left to their owner (a server's options
 * hold these and more).
 *
 * @example
 * resolveLatencyOptions({ parallel: 8 }).tokenMs; // 20
 */
export function resolveLatencyOptions(options: LatencyOptions = {}): ResolvedLatencyOptions {
  const given = options as Record<string, unknown> | null;
  const own = typeof given === "object" && given !== null;
  return resolveShape(
    LATENCY,
    own ? Object.fromEntries(Object.keys(LATENCY).map((k) => [k, given[k]])) : given,
  );
}

/**
 * Validates fault rates: each between 0 and 1, known kinds only, summing to at most 1.
 *
 * @example
 * resolveFaultRates({ 429: 0.1 }); // { 429: 0.1, 500: 0, slow: 0, hang: 0 }
 */
export function resolveFaultRates(rates: FaultRates = {}): Readonly<Record<FaultKind, number>> {
  const resolved = withDefaults(FAULTS, object(FAULTS, { doc: "" }).check("faults", rates));
  const total = faultKinds.reduce((sum, kind) => sum + resolved[kind]!, 0);
  if (total > 1 + 1e-9) throw invalidOption("faults", "rates that sum to at most 1", total);
  return resolved as Record<FaultKind, number>;
}

/**
 * Fills in and validates the options of {@link startUpstream}.
 *
 * @example
 * resolveUpstreamOptions({ parallel: 2, faults: { hang: 0.01 } }).maxQueued; // Infinity
 */
export function resolveUpstreamOptions(options: UpstreamOptions = {}) {
  const resolved = resolveShape(UPSTREAM, options);
  return { ...resolved, faults: resolveFaultRates(resolved.faults), faultRules: resolved.faultRules ?? [] };
}
