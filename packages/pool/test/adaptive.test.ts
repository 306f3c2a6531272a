import type { Upstream } from "@llm-scheduler/upstream-sim";
import { afterEach, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../src/index.js";
import { chatBody, firstWithRoom, jsonHeaders, startReplicaSims } from "./helpers.js";

let sims: Upstream[] = [];
let pool: Pool | undefined;

afterEach(async () => {
  await pool?.close();
  await Promise.all(sims.map((sim) => sim.close()));
  pool = undefined;
  sims = [];
});

describe("an adaptive replica limit", () => {
  it("is cut by the replica's 503s, and the pool's capacity follows it; the refused requests go elsewhere", async () => {
    sims = await startReplicaSims(2, { parallel: 2, maxQueued: 0, ttftMs: 1, tokenMs: 20 });
    pool = createPool({
      replicas: [
        { url: sims[0]!.url, maxConcurrency: { initial: 8, min: 1, max: 8 } },
        { url: sims[1]!.url, maxConcurrency: 2 },
      ],
      routing: firstWithRoom,
      retries: 3,
      health: false,
      signals: false,
    });
    expect(pool.metrics().maxConcurrency).toBe(10);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        pool!
          .fetch("/v1/chat/completions", { method: "POST", headers: jsonHeaders, body: chatBody(`q${i}`, 4) })
          .then(async (r) => {
            await r.text();
            return r.status;
          }),
      ),
    );
    const metrics = pool.metrics();
    const limit = metrics.replicas[0]!.limit;
    expect(limit).toBeLessThan(8);
    expect(metrics.maxConcurrency).toBe(limit + 2);
    expect(metrics.replicas[0]!.failedBeforeFirstByte).toBeGreaterThan(0);
    expect(answers.filter((status) => status === 200).length).toBeGreaterThan(answers.length / 2);
  });
});
