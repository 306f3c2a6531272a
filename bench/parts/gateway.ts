// Part: the gateway's added latency against calling the upstream directly, at a fixed rate of streaming
// requests, with the bare Hono proxy (no key, no scheduling, no log) as the floor, in the same run; then
// memory and CPU with thousands of open streams, the gateway beside the bare proxy.
import { measureOpenStreams, type StreamCost } from "../gateway/open-streams.js";
import { BENCH_KEY, startBareProxy, startGateway, startSim } from "../gateway/servers.js";
import { num } from "../lib/format.js";
import { runProbe } from "../lib/node-child.js";
import type { Part } from "../lib/part.js";
import type { Goal } from "../lib/report.js";
import { quantile } from "../lib/stats.js";
import type { StreamLoad } from "../probes/stream-load.js";

const GOAL_ADDED_P50_MS = 1;
/** The goal's rate; `GATEWAY_BENCH_RATE` lowers it where the machine cannot generate it (the direct row shows when). */
const RATE = Number(process.env.GATEWAY_BENCH_RATE ?? 1_000);

type Target = "direct" | "bare proxy" | "gateway";

export const run: Part = async ({ quick, runs: asked, log }) => {
  const rounds = asked ?? (quick ? 1 : 3);
  const seconds = quick ? 1 : 4;
  // 9,000: each stream holds two sockets in this process (client and upstream), under a 20,000 fd limit
  const streams = Number(process.env.GATEWAY_BENCH_STREAMS ?? (quick ? 300 : 9_000));
  // Short streamed answers: 4 tokens 2 ms apart after a 2 ms first token, served in parallel.
  const fast = await startSim([
    "--parallel",
    "20000",
    "--ttft-ms",
    "2",
    "--token-ms",
    "2",
    "--slowdown",
    "0",
    "--prefill-ms-per-token",
    "0",
  ]);
  const bare = await startBareProxy(fast.url);
  const gateway = await startGateway(fast.url, 10_000);
  const urls: Record<Target, string> = { direct: fast.url, "bare proxy": bare.url, gateway: gateway.url };
  const samples: Record<Target, { ttfb: number[]; total: number[]; failures: number }> = {
    direct: { ttfb: [], total: [], failures: 0 },
    "bare proxy": { ttfb: [], total: [], failures: 0 },
    gateway: { ttfb: [], total: [], failures: 0 },
  };
  const order: Target[] = ["direct", "bare proxy", "gateway"];
  // A quick run (CI's) only checks that the part still runs: no warm-up round.
  for (let round = quick ? 0 : -1; round < rounds; round++) {
    for (let i = 0; i < order.length; i++) {
      const target = order[(i + Math.max(round, 0)) % order.length]!;
      const result = await runProbe<StreamLoad>("stream-load", [
        String(round < 0 ? 1 : seconds),
        String(RATE),
        urls[target],
        BENCH_KEY,
      ]);
      if (round < 0) continue; // warm-up
      samples[target].ttfb.push(...result.ttfb);
      samples[target].total.push(...result.total);
      samples[target].failures += result.failures;
      log(
        `round ${round + 1} ${target}: p50 ${num(quantile(result.total, 0.5), 2)} ms, failures ${result.failures}`,
      );
    }
  }
  // One request at a time, targets in turn: the added cost per request without a queue in front.
  const serial = await runProbe<number[][]>("serial-load", [
    String(quick ? 50 : 500),
    BENCH_KEY,
    ...order.map((target) => urls[target]),
  ]);
  await bare.close();
  await gateway.close();
  fast.stop();

  // Long streams: a token every 2 s, for minutes; `streams` of them open at once through each proxy.
  const slow = await startSim([
    "--parallel",
    "20000",
    "--ttft-ms",
    "1",
    "--token-ms",
    "2000",
    "--slowdown",
    "0",
  ]);
  const costs: Partial<Record<Target, StreamCost>> = {};
  const bareSlow = await startBareProxy(slow.url);
  costs["bare proxy"] = await measureOpenStreams(bareSlow.url, BENCH_KEY, streams, quick ? 2_000 : 5_000);
  await bareSlow.close();
  const gatewaySlow = await startGateway(slow.url, 20_000);
  costs.gateway = await measureOpenStreams(gatewaySlow.url, BENCH_KEY, streams, quick ? 2_000 : 5_000);
  await gatewaySlow.close();
  slow.stop();

  const q = (target: Target, which: "ttfb" | "total", p: number) => quantile(samples[target][which], p);
  const added = (target: Target, p: number) => q(target, "total", p) - q("direct", "total", p);
  const rows = order.map((target) => [
    target,
    num(samples[target].total.length),
    num(q(target, "ttfb", 0.5), 2),
    num(q(target, "total", 0.5), 2),
    num(q(target, "total", 0.99), 2),
    target === "direct" ? "-" : num(added(target, 0.5), 2),
    target === "direct" ? "-" : num(added(target, 0.99), 2),
    num(samples[target].failures),
  ]);
  const costRows = (["bare proxy", "gateway"] as const).map((target) => {
    const cost = costs[target]!;
    return [
      target,
      num(cost.opened),
      num(cost.rssPerStream / 1024, 1),
      num(cost.heapPerStream / 1024, 1),
      num(cost.cpuPercent, 1),
    ];
  });
  const serialRows = order.map((target, i) => {
    const own = serial[i]!;
    const direct = serial[0]!;
    const diff = (p: number) => (i === 0 ? "-" : num(quantile(own, p) - quantile(direct, p), 2));
    return [
      target,
      num(own.length),
      num(quantile(own, 0.5), 2),
      num(quantile(own, 0.99), 2),
      diff(0.5),
      diff(0.99),
    ];
  });
  const serialAdded = quantile(serial[2]!, 0.5) - quantile(serial[0]!, 0.5);
  const addedP50 = added("gateway", 0.5);
  const goals: Goal[] = [
    {
      name: `gateway's added p50 latency at ${RATE} streaming req/s`,
      target: `<= ${GOAL_ADDED_P50_MS} ms over direct`,
      measured: `${num(addedP50, 2)} ms (bare proxy ${num(added("bare proxy", 0.5), 2)} ms; p99 +${num(added("gateway", 0.99), 2)} ms)`,
      holds: addedP50 <= GOAL_ADDED_P50_MS && samples.gateway.failures === 0,
    },
    {
      name: "gateway's added p50 latency, one request at a time",
      target: `<= ${GOAL_ADDED_P50_MS} ms over direct`,
      measured: `${num(serialAdded, 2)} ms (bare proxy ${num(quantile(serial[1]!, 0.5) - quantile(serial[0]!, 0.5), 2)} ms)`,
      holds: serialAdded <= GOAL_ADDED_P50_MS,
    },
  ];
  return {
    part: "gateway",
    title: "Gateway: added latency and open streams",
    method: [
      `Upstream simulators in their own processes; the bare Hono proxy and the gateway in this one (node-server); the load in a third (open loop, ${RATE} req/s, stream: true, 4 tokens, each answer read to its end).`,
      `${rounds} rounds of ${seconds} s per target, the order rotating each round, after a warm-up round. Added = the target's quantile minus direct's.`,
      `Open streams: ${streams} streaming requests held open through each proxy (a token every 2 s); RSS and heap after gc against before, CPU over 5 s.`,
    ],
    tables: [
      {
        title: "Latency (ms)",
        columns: ["target", "requests", "ttfb p50", "p50", "p99", "added p50", "added p99", "failures"],
        rows,
      },
      {
        title: "One request at a time, targets in turn (ms)",
        columns: ["target", "requests", "p50", "p99", "added p50", "added p99"],
        rows: serialRows,
      },
      {
        title: `${streams} open streams`,
        columns: ["proxy", "open", "RSS KB/stream", "heap KB/stream", "CPU % of a core"],
        rows: costRows,
      },
    ],
    goals,
    notes: [],
    raw: { costs, counts: Object.fromEntries(order.map((t) => [t, samples[t].total.length])) },
  };
};
