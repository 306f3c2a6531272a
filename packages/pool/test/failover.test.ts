import type { Upstream } from "@llm-scheduler/upstream-sim";
import { afterEach, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../src/index.js";
import { chatBody, jsonHeaders, startReplicaSims } from "./helpers.js";

let sims: Upstream[] = [];
let pool: Pool | undefined;

afterEach(async () => {
  await pool?.close();
  await Promise.all(sims.map((sim) => sim.close()));
  pool = undefined;
  sims = [];
});

type Outcome = "complete" | "cut-after-bytes" | "failed-before-bytes";

/** Streams one answer to its end, saying whether any byte arrived before a failure. */
async function streamOnce(p: Pool, i: number): Promise<Outcome> {
  let bytes = 0;
  try {
    const response = await p.fetch("/v1/chat/completions", {
      method: "POST",
      headers: jsonHeaders,
      body: chatBody(`q${i}`, 8, true),
      priority: i % 2 === 0 ? "interactive" : "batch",
    });
    if (response.status !== 200) return "failed-before-bytes";
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return "complete";
      bytes += value.length;
    }
  } catch {
    return bytes > 0 ? "cut-after-bytes" : "failed-before-bytes";
  }
}

describe("a replica killed mid-run", () => {
  it("fails none of the requests that had not received a byte, and cuts only streams it was serving", async () => {
    sims = await startReplicaSims(3, { parallel: 4, ttftMs: 2, tokenMs: 8 });
    pool = createPool({
      replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: 4 })),
      scheduler: {
        priorities: { interactive: { weight: 5 }, batch: { weight: 1 } },
        defaultPriority: "interactive",
      },
      health: { failures: 1, intervalMs: 0, ejectMs: 60_000 },
      signals: false,
    });
    const runs = Array.from({ length: 60 }, (_, i) => streamOnce(pool!, i));
    await expect.poll(() => sims[0]!.stats().served, { timeout: 10_000, interval: 2 }).toBeGreaterThan(4);
    const inFlightOnKilled = sims[0]!.stats().inFlight;
    await sims[0]!.crash();
    const outcomes = await Promise.all(runs);
    const count = (kind: Outcome) => outcomes.filter((o) => o === kind).length;
    expect(count("failed-before-bytes")).toBe(0);
    expect(count("cut-after-bytes")).toBeLessThanOrEqual(inFlightOnKilled);
    expect(count("complete")).toBe(60 - count("cut-after-bytes"));
    const metrics = pool.metrics();
    expect(metrics.replicas[0]!.healthy).toBe(false);
    expect(metrics.maxConcurrency).toBe(8);
    expect(metrics.running).toBe(0);
    expect(metrics.replicas.map((r) => r.inFlight)).toEqual([0, 0, 0]);
    for (const sim of sims.slice(1)) expect(sim.stats().maxInFlightSeen).toBeLessThanOrEqual(4);
  }, 30_000);
});
