// HTTP load from a separate process: autocannon against each URL in turn.
// Arguments: <seconds> <connections> <url...>
import { autocannon } from "../http/untyped.js";
import type { Probe } from "../lib/node-child.js";

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

export const main: Probe = async ([seconds, connections, ...urls]) => {
  const results: LoadResult[] = [];
  for (const url of urls) {
    const result = await autocannon({ url, duration: Number(seconds), connections: Number(connections) });
    results.push({
      url,
      requestsPerSecond: result.requests.total / (result.duration || Number(seconds)),
      p50: result.latency.p50,
      p99: result.latency.p99,
      requests: result.requests.total,
      failures: result.non2xx + result.errors + result.timeouts,
    });
  }
  return results;
};
