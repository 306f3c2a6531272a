import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import { createDashboard, type Dashboard, type DashboardSnapshot } from "./index.js";

const open: Dashboard[] = [];
afterEach(() => {
  for (const dashboard of open.splice(0)) dashboard.close();
});

async function snapshotOf(dashboard: Dashboard): Promise<DashboardSnapshot> {
  return (await dashboard(new Request("http://x/dashboard/api/snapshot"))).json();
}

function priority(snapshot: DashboardSnapshot, name: string) {
  return snapshot.priorities.find((p) => p.name === name)!;
}

async function flush(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

const withStatus = (status: number): Error => Object.assign(new Error(`upstream ${status}`), { status });

describe("the snapshot of a scheduler that adjusts itself", () => {
  it("shows the adaptive limit in force, overall and per priority", async () => {
    const clock = new VirtualClock(0);
    const scheduler = createScheduler({
      clock,
      maxConcurrency: { initial: 8, min: 2, max: 16 },
      priorities: { interactive: { weight: 5 }, batch: { weight: 1, maxConcurrency: 7 } },
    });
    const dashboard = createDashboard({ scheduler, access: "aggregate" });
    open.push(dashboard);
    let snapshot = await snapshotOf(dashboard);
    expect(snapshot.maxConcurrency).toBe(8);
    expect(priority(snapshot, "batch").limit).toBe(7);
    const failing = scheduler.run(
      () => new Promise((_, reject) => clock.setTimer(() => reject(withStatus(503)), 10)),
    );
    clock.advance(20);
    await expect(failing).rejects.toThrow("upstream 503");
    snapshot = await snapshotOf(dashboard);
    expect(snapshot.maxConcurrency).toBe(6); // cut by 0.75 on the 503
    expect(priority(snapshot, "interactive").limit).toBe(6);
    expect(priority(snapshot, "batch").limit).toBe(6);
    await scheduler.close();
  });

  it("counts preemptions and the run time lost per priority", async () => {
    const clock = new VirtualClock(0);
    const scheduler = createScheduler({
      clock,
      maxConcurrency: 1,
      priorities: { interactive: { preempts: ["batch"] }, batch: {} },
    });
    const dashboard = createDashboard({ scheduler, access: "aggregate" });
    open.push(dashboard);
    expect(priority(await snapshotOf(dashboard), "batch")).toMatchObject({ preempted: 0, preemptedRunMs: 0 });
    let runs = 0;
    const batch = scheduler.run(
      ({ signal }) =>
        new Promise((resolve, reject) => {
          runs++;
          if (runs === 1) signal.addEventListener("abort", () => reject(signal.reason));
          else resolve("done");
        }),
      { priority: "batch" },
    );
    clock.advance(2_500);
    await scheduler.run(() => "chat", { priority: "interactive" });
    await batch;
    const snapshot = await snapshotOf(dashboard);
    expect(priority(snapshot, "batch")).toMatchObject({ preempted: 1, preemptedRunMs: 2_500 });
    expect(priority(snapshot, "interactive")).toMatchObject({ preempted: 0, preemptedRunMs: 0 });
    await scheduler.close();
  });

  it("shows the configured and the effective share beside the wait target", async () => {
    const clock = new VirtualClock(0);
    const scheduler = createScheduler({
      clock,
      maxConcurrency: 4,
      priorities: {
        interactive: { weight: 2, targetWaitMs: 500, queueTimeoutMs: 120_000 },
        batch: { weight: 1, queueTimeoutMs: 3_600_000, maxQueue: 100_000 },
      },
      waitTargets: { windowMs: 2_000, minSamples: 5, calmWindows: 2 },
    });
    const dashboard = createDashboard({ scheduler, access: "aggregate" });
    open.push(dashboard);
    let snapshot = await snapshotOf(dashboard);
    expect(priority(snapshot, "interactive")).toMatchObject({
      weight: 2,
      effectiveWeight: 2,
      reserved: 0,
      effectiveReserved: 0,
      targetWaitMs: 500,
    });
    expect(priority(snapshot, "batch").targetWaitMs).toBeNull();
    // Every slot busy with ten-second batch work; chat arrives every 250 ms and waits past its target.
    const sleep = (ms: number) => () => new Promise<void>((resolve) => clock.setTimer(resolve, ms));
    for (let i = 0; i < 200; i++) scheduler.run(sleep(10_000), { priority: "batch" }).catch(() => {});
    let raised = false;
    scheduler.on("share", (event) => {
      if (event.reason === "above-target") raised = true;
    });
    for (let at = 0; at < 60_000 && !raised; at += 50) {
      if (at % 250 === 0) scheduler.run(sleep(200), { priority: "interactive" }).catch(() => {});
      clock.advance(50);
      await flush();
    }
    expect(raised).toBe(true);
    snapshot = await snapshotOf(dashboard);
    const interactive = priority(snapshot, "interactive");
    expect(interactive.weight).toBe(2);
    expect(interactive.effectiveWeight).toBeGreaterThan(2);
    expect(interactive.effectiveReserved).toBeGreaterThanOrEqual(1);
    const closing = scheduler.close({ timeoutMs: 0 });
    for (let i = 0; i < 10 && clock.nextTimerAt() !== undefined; i++) {
      clock.advance(10_000);
      await flush();
    }
    await closing;
  });
});
