import { describe, expect, it } from "vitest";
import { parseEngineMetrics } from "./engine-metrics.js";

describe("parseEngineMetrics", () => {
  it("reads vLLM's names, summing label sets and skipping comments", () => {
    const text = [
      "# HELP vllm:num_requests_running Number of requests in model execution batches.",
      "# TYPE vllm:num_requests_running gauge",
      'vllm:num_requests_running{engine="0",model_name="m"} 5',
      'vllm:num_requests_running{engine="1",model_name="m"} 3',
      'vllm:num_requests_waiting{model_name="m"} 2.0',
      'vllm:kv_cache_usage_perc{model_name="m"} 0.42',
      'vllm:prefix_cache_hits_total{model_name="m"} 900',
    ].join("\n");
    expect(parseEngineMetrics(text)).toEqual({ waiting: 2, running: 8, kvCacheUsage: 0.42 });
  });

  it("reads older vLLM, SGLang and TGI names", () => {
    expect(parseEngineMetrics("vllm:num_requests_waiting 1\nvllm:gpu_cache_usage_perc 0.5\n")).toEqual({
      waiting: 1,
      running: 0,
      kvCacheUsage: 0.5,
    });
    const sglang =
      'sglang:num_queue_reqs{model_name="m"} 4\nsglang:num_running_reqs{model_name="m"} 7\nsglang:token_usage{model_name="m"} 0.9\n';
    expect(parseEngineMetrics(sglang)).toEqual({ waiting: 4, running: 7, kvCacheUsage: 0.9 });
    expect(parseEngineMetrics("tgi_queue_size 3\ntgi_batch_current_size 12 1700000000000\n")).toEqual({
      waiting: 3,
      running: 12,
      kvCacheUsage: undefined,
    });
  });

  it("gives undefined for text with no engine signal, and skips malformed lines", () => {
    expect(parseEngineMetrics("process_cpu_seconds_total 12\n")).toBeUndefined();
    expect(parseEngineMetrics("<html>not found</html>")).toBeUndefined();
    expect(
      parseEngineMetrics(
        "vllm:num_requests_waiting{broken 3\nvllm:num_requests_running NaN\nvllm:num_requests_running 2",
      ),
    ).toEqual({
      waiting: 0,
      running: 2,
      kvCacheUsage: undefined,
    });
    expect(parseEngineMetrics("vllm:num_requests_waiting 1\nvllm:kv_cache_usage_perc 7")?.kvCacheUsage).toBe(
      1,
    );
  });
});
