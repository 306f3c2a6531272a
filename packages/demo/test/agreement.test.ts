import {
  generateWorkload,
  type RunResult,
  renderComparison,
  resolveScenario,
  simulate,
} from "@llm-scheduler/simulator";
import { startUpstream } from "@llm-scheduler/upstream-sim";
import { describe, expect, it } from "vitest";
import { runPhase } from "../src/phase.js";

/**
 * How close the virtual-time simulator must come to a real run over HTTP: within 25% of the virtual
 * value or 100 ms, whichever is larger. The absolute part covers what the model leaves out on purpose:
 * HTTP and event-loop time (a few ms per request, tens of ms on a loaded two-core machine) and the
 * real server reading its load once per token rather than continuously.
 */
const RELATIVE = 0.25;
const ABSOLUTE_MS = 100;

const within = (virtual: number, real: number): boolean =>
  Math.abs(real - virtual) <= Math.max(RELATIVE * virtual, ABSOLUTE_MS);

const METRICS: readonly [string, (result: RunResult) => number][] = [
  ["interactive queue wait p50", (r) => r.interactive.waitMs.p50],
  ["interactive queue wait p95", (r) => r.interactive.waitMs.p95],
  ["interactive TTFT p50", (r) => r.interactive.ttftMs.p50],
  ["batch makespan", (r) => r.batch.makespanMs],
  ["longest batch wait", (r) => r.batch.longestWaitMs],
];

/**
 * A small flood (40 items on 4 sequences) and a few chats. The front end never times out here, so no
 * retry can flip between the two runs on a few ms of difference: waits and makespans compare as they are.
 */
const scenario = resolveScenario({
  name: "agreement",
  seed: 1,
  durationMs: 4_000,
  upstream: { parallel: 4, ttftMs: 30, prefillMsPerToken: 0.05, tokenMs: 8, slowdown: 1 },
  scheduler: {
    priorities: { interactive: { weight: 5, reserved: 1 }, batch: { weight: 1, queueTimeoutMs: "Infinity" } },
  },
  chat: { ratePerSec: 3, tenant: "chat-app", maxTokens: { min: 8, max: 24 }, timeoutMs: "Infinity" },
  batch: {
    tenants: [
      { name: "indexer", items: 24, promptTokens: { min: 400, max: 800 }, maxTokens: { min: 20, max: 40 } },
      {
        name: "evals",
        items: 16,
        startMs: 800,
        promptTokens: { min: 400, max: 800 },
        maxTokens: { min: 20, max: 40 },
      },
    ],
  },
});

describe("the virtual-time simulator", () => {
  it("agrees with a real-time run over HTTP of the same small scenario", async () => {
    const workload = generateWorkload(scenario);
    const virtual = [
      await simulate(scenario, { gateway: "fifo", workload, label: "virtual FIFO" }),
      await simulate(scenario, { gateway: "scheduler", workload, label: "virtual llm-scheduler" }),
    ];
    const sim = await startUpstream({ ...scenario.upstream, seed: scenario.seed, port: 0 });
    const real: RunResult[] = [];
    try {
      const phase = { scenario, workload, upstream: sim.url };
      real.push(await runPhase({ ...phase, gateway: "fifo", label: "real FIFO" }));
      real.push(await runPhase({ ...phase, gateway: "scheduler", label: "real llm-scheduler" }));
    } finally {
      await sim.close();
    }
    const table = renderComparison(scenario, [virtual[0]!, real[0]!, virtual[1]!, real[1]!]);
    const misses: string[] = [];
    virtual.forEach((run, index) => {
      for (const [name, read] of METRICS) {
        const [v, r] = [read(run), read(real[index]!)];
        if (!within(v, r))
          misses.push(`${real[index]!.label} ${name}: virtual ${v.toFixed(0)}, real ${r.toFixed(0)}`);
      }
      expect(real[index]!.batch.completed).toBe(run.batch.completed);
      expect(real[index]!.interactive.requests).toBe(run.interactive.requests);
    });
    expect(misses, `${misses.join("\n")}\n\n${table}`).toEqual([]);
    // And the point of it all holds in both worlds.
    expect(real[0]!.interactive.waitMs.p95).toBeGreaterThan(10 * real[1]!.interactive.waitMs.p95);
  }, 90_000);
});
