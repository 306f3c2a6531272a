import type { SchedulerEvents } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import { type Instance, instance, useRedisServer, waitFor } from "./helpers.js";

const redis = useRedisServer({ admin: true });
let prefixes = 0;
const open: Instance[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((gateway) => gateway.close()));
});

const lanes = {
  interactive: { weight: 5, preempts: ["batch"] },
  batch: { weight: 1, queueTimeoutMs: 3_600_000, preemptible: { maxPerTask: 2 } },
};

function gateway(prefix: string): Instance {
  const created = instance(
    redis.server.url,
    { prefix, leaseMs: 3_000, pollMs: 50 },
    { maxConcurrency: 2, priorities: lanes, abortGraceMs: 5_000 },
  );
  open.push(created);
  return created;
}

/** A task that stops as soon as its signal fires; `finish` ends the current run well. */
function polite(gatewayOf: Instance, name: string, priority: string, runs: string[]) {
  let finish: (() => void) | null = null;
  const done = gatewayOf.scheduler.run(
    ({ signal }) =>
      new Promise<string>((resolve, reject) => {
        runs.push(name);
        finish = () => resolve(name);
        signal.addEventListener("abort", () => reject(signal.reason));
      }),
    { id: name, priority },
  );
  return { done, finish: () => finish?.() };
}

describe("preemption across instances on Redis", () => {
  it("stops a batch task on instance A for an interactive arrival on instance B, which gets its slot", async () => {
    const prefix = `preempt${++prefixes}:`;
    const a = gateway(prefix);
    const b = gateway(prefix);
    const runs: string[] = [];
    const preempted: Array<SchedulerEvents["preempted"]> = [];
    a.scheduler.on("preempted", (event) => preempted.push(event));
    const first = polite(a, "batch-1", "batch", runs);
    await waitFor(() => runs.length === 1);
    const second = polite(a, "batch-2", "batch", runs);
    await waitFor(() => runs.length === 2);
    const chat = polite(b, "chat", "interactive", runs);
    await waitFor(() => runs.includes("chat"), 5_000, "the interactive start");
    expect(preempted).toMatchObject([{ id: "batch-2", by: "interactive", preemptions: 1 }]);
    expect(runs).toEqual(["batch-1", "batch-2", "chat"]);
    chat.finish();
    await expect(chat.done).resolves.toBe("chat");
    await waitFor(() => runs.length === 4, 5_000, "the batch task's second run");
    expect(runs[3]).toBe("batch-2");
    first.finish();
    second.finish();
    await expect(second.done).resolves.toBe("batch-2");
    await expect(first.done).resolves.toBe("batch-1");
    expect([...a.errors, ...b.errors]).toEqual([]);
  });
});
