import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { handleAdmin } from "./admin.js";
import { createContext, type SimContext } from "./context.js";
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
   * and forgets the attempts counted so far. Throws `INVALID_OPTION` on a bad rule.
   */
  setFaultRules(rules: readonly FaultRule[]): void;
  /**
   * Multiplies every delay of the requests that arrive from now on: `2` serves at half speed, `1` at
   * full speed again (also `POST /admin/speed` with `{ "factor": 2 }`).
   */
  setSpeed(factor: number): void;
  /**
   * Fails like a crashed process: every open connection is dropped (streams cut mid-way), every
   * sequence freed, and the port closed, so new connections are refused until {@link restart}
   * (also `POST /admin/crash`, with `restartAfterMs` to come back by itself).
   */
  crash(): Promise<void>;
  /** Listens again on the same port after a {@link crash}, with a cold (empty) prefix cache. */
  restart(): Promise<void>;
  /** False between a crash and its restart, and after close. */
  readonly up: boolean;
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
  const routes = createRequestListener(context);
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  const server = createServer(function upstreamSimServer(req, res) {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (!handleAdmin(path, req, res, { setSpeed, crash: crashThenRestart })) routes(req, res);
  });
  await listen(server, resolved.port, resolved.host);
  const address = server.address() as AddressInfo;
  let up = true;
  let closed = false;
  const setSpeed = (factor: number): void => {
    if (!(factor >= 0.01 && factor <= 1_000))
      throw new TypeError("Expected the speed factor to be from 0.01 to 1000");
    context.speedFactor = factor;
  };
  const crash = async (): Promise<void> => {
    if (!up) return;
    up = false;
    await stop(server, context);
    context.cache.clear();
  };
  const restart = async (): Promise<void> => {
    if (up || closed) return;
    await listen(server, address.port, resolved.host);
    up = true;
  };
  function crashThenRestart(restartAfterMs: number | undefined): void {
    void crash().then(() => {
      if (restartAfterMs === undefined || closed) return;
      restartTimer = setTimeout(() => void restart().catch(() => {}), restartAfterMs);
      restartTimer.unref();
    });
  }
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
    setSpeed,
    crash,
    restart,
    get up() {
      return up;
    },
    close: () => {
      closed = true;
      clearTimeout(restartTimer);
      if (closing === undefined) {
        closing = up ? stop(server, context) : Promise.resolve();
        up = false;
      }
      return closing;
    },
  };
}

/**
 * Starts `count` simulated replicas with the same options, each on its own port (`port: 0`: free ports;
 * another port: that one and the ones after it), with seeds `seed`, `seed + 1`, ... so that their
 * faults and texts differ.
 *
 * @example
 * const replicas = await startReplicas(4, { parallel: 8, prefixCacheBlocks: 2048 });
 * console.log(replicas.map((replica) => replica.url));
 */
export async function startReplicas(count: number, options: UpstreamOptions = {}): Promise<Upstream[]> {
  if (!Number.isInteger(count) || count < 1 || count > 1_000) {
    throw new TypeError(
      `Expected \`replicas\` to be an integer from 1 to 1000, got \`${count}\` (${typeof count})`,
    );
  }
  const port = options.port ?? 0;
  const seed = options.seed ?? 42;
  const started: Upstream[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      started.push(await startUpstream({ ...options, port: port === 0 ? 0 : port + i, seed: seed + i }));
    }
  } catch (error) {
    await Promise.all(started.map((replica) => replica.close()));
    throw error;
  }
  return started;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Stops listening, aborts every request being handled and drops every connection. */
function stop(server: Server, context: SimContext): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    for (const controller of context.requests) controller.abort(new Error("The simulator is closing"));
    server.closeAllConnections();
  });
}
