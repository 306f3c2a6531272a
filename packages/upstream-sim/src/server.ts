import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createContext } from "./context.js";
import type { FaultRule } from "./fault-rules.js";
import type { LatencyModel } from "./latency-model.js";
import {
  type FaultRates,
  type ResolvedUpstreamOptions,
  resolveUpstreamOptions,
  type UpstreamOptions,
} from "./options.js";
import { createRequestListener } from "./routes.js";
import type { UpstreamStats } from "./stats.js";

/** A running simulated server. */
export interface Upstream {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:49152`; the OpenAI base URL is `url + "/v1"`. */
  readonly url: string;
  /** The port it listens on (the real one when `port: 0`). */
  readonly port: number;
  /** The resolved options. */
  readonly options: ResolvedUpstreamOptions;
  /** The latency model driving the timers, for computing expected times in tests. */
  readonly latency: LatencyModel;
  /** A plain snapshot of the counters, the same as `GET /stats`. */
  stats(): UpstreamStats;
  /** Zeroes the counters and high-water marks. */
  resetStats(): void;
  /** Replaces the fault rates for the requests that arrive from now on; kinds left out become 0. */
  setFaults(rates: FaultRates): void;
  /**
   * Replaces the targeted fault rules (see {@link FaultRule}) for the requests that arrive from now on,
   * and forgets the attempts counted so far. Throws a `TypeError` on a bad rule.
   */
  setFaultRules(rules: readonly FaultRule[]): void;
  /** Stops listening, drops every open connection and frees every sequence; resolves once closed. */
  close(): Promise<void>;
}

function urlOf(address: AddressInfo): string {
  const host =
    address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

/**
 * Starts an OpenAI-compatible LLM server simulator on a real `node:http` server.
 *
 * @example
 * const sim = await startUpstream({ port: 0, parallel: 4, tokenMs: 5 });
 * const res = await fetch(`${sim.url}/v1/chat/completions`, {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({ model: "sim-model", messages: [{ role: "user", content: "Hi" }], max_tokens: 8 }),
 * });
 * console.log((await res.json()).choices[0].message.content, sim.stats().served);
 * await sim.close();
 */
export async function startUpstream(options: UpstreamOptions = {}): Promise<Upstream> {
  const resolved = resolveUpstreamOptions(options);
  const context = createContext(resolved);
  const server = createServer(createRequestListener(context));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: urlOf(address),
    port: address.port,
    options: resolved,
    latency: context.latency,
    stats: () => context.stats.snapshot(),
    resetStats: () => context.stats.reset(),
    setFaults: (rates) => context.faults.setRates(rates),
    setFaultRules: (rules) => context.rules.replace(rules),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const controller of context.requests) controller.abort(new Error("The simulator is closing"));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
