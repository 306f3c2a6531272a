/**
 * Options of the simulated server and of its latency model, with their defaults and validation.
 *
 * Every `resolve*` function drops `undefined` values, merges the defaults and validates everything up
 * front, so a wrong option fails at start-up with a message such as
 * ``Expected `parallel` to be an integer from 1 to 100000, got `0` (number)``.
 */
import { rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { type FaultKind, faultKinds } from "./fault-kinds.js";
import { type FaultRule, resolveFaultRules } from "./fault-rules.js";
import { MAX_TOKENS } from "./request-parse.js";

export { type FaultKind, faultKinds } from "./fault-kinds.js";

/**
 * The share of requests that get each fault, each between 0 and 1; together at most 1.
 * Faults are drawn from the seeded generator in arrival order, so a run is reproducible.
 *
 * - `429`: answered at once with 429 and `Retry-After`, without taking a sequence.
 * - `500`: answered at once with 500, without taking a sequence.
 * - `slow`: served normally, but every delay is multiplied by `slowFactor`.
 * - `hang`: takes a sequence and never answers until the client goes away.
 *
 * @example
 * const rates: FaultRates = { 429: 0.05, slow: 0.1 };
 */
export type FaultRates = { readonly [K in FaultKind]?: number };

/** Options of the latency model, shared by the HTTP server and by virtual-time simulators. */
export interface LatencyOptions {
  /**
   * Sequences served at once (like vLLM's `--max-num-seqs` or Ollama's `OLLAMA_NUM_PARALLEL`).
   * @default 4
   */
  readonly parallel?: number;
  /**
   * Base time to first token in milliseconds, paid by every request once it holds a sequence.
   * @default 50
   */
  readonly ttftMs?: number;
  /**
   * Prefill time per prompt token in milliseconds, added to the time to first token.
   * @default 0.2
   */
  readonly prefillMsPerToken?: number;
  /**
   * Decode time per generated token in milliseconds when the sequence runs alone.
   * @default 20
   */
  readonly tokenMs?: number;
  /**
   * How much a full batch slows every sequence down: with all `parallel` sequences busy, each step takes
   * `1 + slowdown` times as long as alone. `0` means no slowdown.
   * @default 1
   */
  readonly slowdown?: number;
}

/** Options of {@link startUpstream}. */
export interface UpstreamOptions extends LatencyOptions {
  /**
   * Port to listen on; `0` picks a free one.
   * @default 0
   */
  readonly port?: number;
  /**
   * Host to listen on.
   * @default "127.0.0.1"
   */
  readonly host?: string;
  /**
   * Model name listed by `GET /v1/models` and returned when a request names none.
   * @default "sim-model"
   */
  readonly model?: string;
  /**
   * Tokens generated when a request sets neither `max_tokens` nor `max_completion_tokens`.
   * @default 64
   */
  readonly defaultMaxTokens?: number;
  /**
   * Requests allowed to wait inside the server for a sequence; beyond it the server answers 503 at once
   * (like Ollama's `OLLAMA_MAX_QUEUE`). `Infinity` waits forever, like vLLM.
   * @default Infinity
   */
  readonly maxQueued?: number;
  /**
   * Seed of the pseudo-random generator that picks faults and filler words.
   * @default 42
   */
  readonly seed?: number;
  /**
   * Share of requests that get each fault.
   * @default {}
   */
  readonly faults?: FaultRates;
  /**
   * Targeted faults: requests that match a rule (by prompt text or `x-sim-fault-key`) get its fault on
   * their first `times` attempts, then are served normally. Checked before the `faults` rates.
   * @default []
   */
  readonly faultRules?: readonly FaultRule[];
  /**
   * Seconds sent in `Retry-After` with a 429 (also sent in milliseconds as `retry-after-ms`).
   * @default 1
   */
  readonly retryAfterSeconds?: number;
  /**
   * Factor applied to every delay of a `slow` request.
   * @default 5
   */
  readonly slowFactor?: number;
  /**
   * KV blocks the prefix cache holds (least recently used evicted first); a prompt whose leading blocks
   * are cached skips their prefill. `0` turns the cache off.
   * @default 0
   */
  readonly prefixCacheBlocks?: number;
  /**
   * Tokens per KV block of the prefix cache (vLLM's `--block-size`).
   * @default 16
   */
  readonly blockTokens?: number;
}

/** Latency options with every default filled in. */
export type ResolvedLatencyOptions = Required<LatencyOptions>;

/** Server options with every default filled in. */
export interface ResolvedUpstreamOptions extends Required<Omit<UpstreamOptions, "faults" | "faultRules">> {
  readonly faults: Readonly<Record<FaultKind, number>>;
  readonly faultRules: readonly FaultRule[];
}

const latencyDefaults: ResolvedLatencyOptions = {
  parallel: 4,
  ttftMs: 50,
  prefillMsPerToken: 0.2,
  tokenMs: 20,
  slowdown: 1,
};

const upstreamDefaults: Omit<ResolvedUpstreamOptions, keyof LatencyOptions | "faults" | "faultRules"> = {
  port: 0,
  host: "127.0.0.1",
  model: "sim-model",
  defaultMaxTokens: 64,
  maxQueued: Number.POSITIVE_INFINITY,
  seed: 42,
  retryAfterSeconds: 1,
  slowFactor: 5,
  prefixCacheBlocks: 0,
  blockTokens: 16,
};

function describe(value: unknown): string {
  return `\`${String(value)}\` (${typeof value})`;
}

function fail(name: string, expected: string, value: unknown): never {
  throw new TypeError(`Expected \`${name}\` to be ${expected}, got ${describe(value)}`);
}

/** Every number has a range: wide enough for any real server, narrow enough to catch a slipped exponent. */
const WEEK_MS = 604_800_000;

function positiveInteger(name: string, value: unknown, max: number): void {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
    fail(name, `an integer from 1 to ${max}`, value);
  }
}

function nonNegativeNumber(name: string, value: unknown, max: number): void {
  if (typeof value !== "number" || !(value >= 0 && value <= max)) {
    fail(name, `a number from 0 to ${max}`, value);
  }
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * Fills in and validates latency options.
 *
 * @example
 * resolveLatencyOptions({ parallel: 8 }).tokenMs; // 20
 */
export function resolveLatencyOptions(options: LatencyOptions = {}): ResolvedLatencyOptions {
  if (typeof options !== "object" || options === null) fail("options", "an object", options);
  const resolved = { ...latencyDefaults, ...withoutUndefined(options) };
  positiveInteger("parallel", resolved.parallel, 100_000);
  nonNegativeNumber("ttftMs", resolved.ttftMs, WEEK_MS);
  nonNegativeNumber("prefillMsPerToken", resolved.prefillMsPerToken, 60_000);
  nonNegativeNumber("tokenMs", resolved.tokenMs, WEEK_MS);
  nonNegativeNumber("slowdown", resolved.slowdown, 1_000);
  return resolved;
}

/**
 * Validates fault rates: each between 0 and 1, known kinds only, summing to at most 1.
 *
 * @example
 * resolveFaultRates({ 429: 0.1 }); // { 429: 0.1, 500: 0, slow: 0, hang: 0 }
 */
export function resolveFaultRates(rates: FaultRates = {}): Readonly<Record<FaultKind, number>> {
  if (typeof rates !== "object" || rates === null) fail("faults", "an object", rates);
  rejectUnknownKeys("faults", rates, faultKinds);
  const resolved = { 429: 0, 500: 0, slow: 0, hang: 0, ...withoutUndefined(rates) };
  let total = 0;
  for (const kind of faultKinds) {
    const rate = resolved[kind];
    if (typeof rate !== "number" || !(rate >= 0 && rate <= 1))
      fail(`faults.${kind}`, "a number from 0 to 1", rate);
    total += rate;
  }
  if (total > 1 + 1e-9) fail("faults", "rates that sum to at most 1", total);
  return resolved;
}

/**
 * Fills in and validates the options of {@link startUpstream}.
 *
 * @example
 * resolveUpstreamOptions({ parallel: 2, faults: { hang: 0.01 } }).maxQueued; // Infinity
 */
export function resolveUpstreamOptions(options: UpstreamOptions = {}): ResolvedUpstreamOptions {
  if (typeof options !== "object" || options === null) fail("options", "an object", options);
  rejectUnknownKeys("", options, [
    ...Object.keys(latencyDefaults),
    ...Object.keys(upstreamDefaults),
    "faults",
    "faultRules",
  ]);
  const { faults, faultRules, ...rest } = withoutUndefined(options);
  const resolved = { ...upstreamDefaults, ...rest, ...resolveLatencyOptions(rest) };
  const { port, host, model, maxQueued } = resolved;
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65_535) {
    fail("port", "an integer from 0 to 65535", port);
  }
  if (typeof host !== "string" || host === "") fail("host", "a non-empty string", host);
  if (typeof model !== "string" || model === "") fail("model", "a non-empty string", model);
  positiveInteger("defaultMaxTokens", resolved.defaultMaxTokens, MAX_TOKENS);
  if (maxQueued !== Number.POSITIVE_INFINITY) {
    if (typeof maxQueued !== "number" || !Number.isInteger(maxQueued) || maxQueued < 0 || maxQueued > 1e9) {
      fail("maxQueued", "an integer from 0 to 1e9, or Infinity", maxQueued);
    }
  }
  if (typeof resolved.seed !== "number" || !Number.isSafeInteger(resolved.seed)) {
    fail("seed", "a safe integer", resolved.seed);
  }
  nonNegativeNumber("retryAfterSeconds", resolved.retryAfterSeconds, 86_400);
  if (
    typeof resolved.slowFactor !== "number" ||
    !(resolved.slowFactor >= 1 && resolved.slowFactor <= 1_000)
  ) {
    fail("slowFactor", "a number from 1 to 1000", resolved.slowFactor);
  }
  if (resolved.prefixCacheBlocks !== 0) positiveInteger("prefixCacheBlocks", resolved.prefixCacheBlocks, 1e7);
  positiveInteger("blockTokens", resolved.blockTokens, 1_024);
  return { ...resolved, faults: resolveFaultRates(faults), faultRules: resolveFaultRules(faultRules) };
}
