import type { EngineSignals } from "./replica-state.js";

/**
 * The metric names each engine exposes on its Prometheus endpoint, for the three signals a pool reads.
 * vLLM's KV usage is a fraction (0..1); so is SGLang's `token_usage`. TGI exposes no KV usage.
 */
const NAMES = {
  waiting: ["vllm:num_requests_waiting", "sglang:num_queue_reqs", "tgi_queue_size"],
  running: ["vllm:num_requests_running", "sglang:num_running_reqs", "tgi_batch_current_size"],
  kvCacheUsage: ["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage"],
} as const;

type Signal = keyof typeof NAMES;

const SIGNAL_OF = new Map<string, Signal>(
  (Object.keys(NAMES) as Signal[]).flatMap((signal) => NAMES[signal].map((name) => [name, signal] as const)),
);

/**
 * Reads the engine's queue, batch and KV cache usage from a Prometheus text exposition (vLLM, SGLang
 * or TGI names). Samples of one name with several label sets (one per model or engine) are summed;
 * KV usage takes the highest. Returns `undefined` when the text names neither a queue nor a batch.
 *
 * @example
 * parseEngineMetrics('vllm:num_requests_waiting{model_name="m"} 3\nvllm:num_requests_running{model_name="m"} 8\n');
 * // { waiting: 3, running: 8, kvCacheUsage: undefined }
 */
export function parseEngineMetrics(text: string): EngineSignals | undefined {
  const found: Partial<Record<Signal, number>> = {};
  for (const line of text.split("\n")) {
    const sample = sampleOf(line);
    if (sample === undefined) continue;
    const signal = SIGNAL_OF.get(sample.name);
    if (signal === undefined) continue;
    const before = found[signal];
    if (signal === "kvCacheUsage") found[signal] = Math.max(before ?? 0, clamp01(sample.value));
    else found[signal] = (before ?? 0) + Math.max(0, sample.value);
  }
  if (found.waiting === undefined && found.running === undefined) return undefined;
  return { waiting: found.waiting ?? 0, running: found.running ?? 0, kvCacheUsage: found.kvCacheUsage };
}

/** One sample line `name{labels} value [timestamp]`; comments, blank and malformed lines give `undefined`. */
function sampleOf(line: string): { name: string; value: number } | undefined {
  const text = line.trim();
  if (text === "" || text.startsWith("#")) return undefined;
  const brace = text.indexOf("{");
  const nameEnd = brace === -1 ? text.search(/\s/) : brace;
  if (nameEnd <= 0) return undefined;
  const afterLabels = brace === -1 ? nameEnd : text.indexOf("}", brace) + 1;
  if (afterLabels <= 0) return undefined;
  const value = Number(text.slice(afterLabels).trim().split(/\s+/)[0]);
  if (!Number.isFinite(value)) return undefined;
  return { name: text.slice(0, nameEnd), value };
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
