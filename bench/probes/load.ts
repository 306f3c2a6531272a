// HTTP load from a separate process: autocannon against each URL in turn.
// Arguments: <seconds> <connections> <url...> [--parallel] [--cpu=<n>]; --parallel loads every URL at once
// (only for smoke runs: the servers then compete for the CPU); --cpu pins this process to CPU n first.
import { autocannon } from "../http/untyped.js";
import type { Probe } from "../lib/node-child.js";
import { pinTo } from "../lib/pin.js";

/** What the parent gets per URL. */
export interface LoadResult {
  readonly url: string;
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  /** Responses that were not 2xx, plus errors and timeouts: must be 0. */
  readonly failures: number;
}

export const main: Probe = async ([seconds, connections, ...rest]) => {
  const urls = rest.filter((arg) => !arg.startsWith("--"));
  const cpu = rest.find((arg) => arg.startsWith("--cpu="));
  if (cpu !== undefined) pinTo(Number(cpu.slice("--cpu=".length)));
  const load = async (url: string): Promise<LoadResult> => {
    const result = await autocannon({ url, duration: Number(seconds), connections: Number(connections) });
    return {
      url,
      requestsPerSecond: result.requests.total / result.duration,
      p50: result.latency.p50,
      p99: result.latency.p99,
      requests: result.requests.total,
      failures: result.non2xx + result.errors + result.timeouts,
    };
  };
  if (rest.includes("--parallel")) return Promise.all(urls.map(load));
  const results: LoadResult[] = [];
  for (const url of urls) results.push(await load(url));
  return results;
};
