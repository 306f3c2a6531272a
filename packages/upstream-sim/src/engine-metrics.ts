import type { SimContext } from "./context.js";

/**
 * The server's state in vLLM's Prometheus text format, as a pool or a monitor scrapes it from
 * `GET /metrics`: the engine's running batch and queue, KV cache usage (here the share of sequences
 * busy, the simulator's stand-in for blocks in use) and the prefix cache's token counters.
 *
 * @example
 * vllmMetricsText(context); // "# HELP vllm:num_requests_running ...\nvllm:num_requests_running{model_name=\"sim-model\"} 2\n..."
 */
export function vllmMetricsText(context: SimContext): string {
  const { model, parallel } = context.options;
  const label = `{model_name="${model.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"}`;
  const { queries, hits } = context.cache.counters;
  const series: [name: string, type: string, help: string, value: number][] = [
    [
      "vllm:num_requests_running",
      "gauge",
      "Number of requests in model execution batches.",
      context.slots.active,
    ],
    [
      "vllm:num_requests_waiting",
      "gauge",
      "Number of requests waiting to be processed.",
      context.slots.waiting,
    ],
    [
      "vllm:kv_cache_usage_perc",
      "gauge",
      "KV-cache usage. 1 means 100 percent usage.",
      context.slots.active / parallel,
    ],
    ["vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in tokens.", queries],
    ["vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in tokens.", hits],
  ];
  return series
    .map(
      ([name, type, help, value]) =>
        `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name}${label} ${value}\n`,
    )
    .join("");
}
