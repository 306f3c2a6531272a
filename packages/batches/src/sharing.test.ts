import { createScheduler, type Scheduler, VirtualClock } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import { advance, items } from "../test/helpers.js";
import type { Batches } from "./batches.js";
import { createBatches } from "./create.js";

let open: Batches | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const HOLD_MS = 1_000;

/** A virtual-time scheduler (4 slots) whose upstream takes `HOLD_MS` for every call. */
function world(withBatches: boolean) {
  const clock = new VirtualClock(1_000_000);
  const scheduler: Scheduler = createScheduler({ clock, maxConcurrency: 4 });
  const slow = () => new Promise<void>((resolve) => clock.setTimer(resolve, HOLD_MS));
  const batches = withBatches
    ? createBatches({
        scheduler,
        clock,
        random: () => 0.5,
        execute: async () => {
          await slow();
          return { status: 200, body: null };
        },
      })
    : undefined;
  return { clock, scheduler, batches, slow };
}

/** Interactive calls every 700 ms for 60 s (each also holding the upstream `HOLD_MS`); their waits. */
async function interactiveWaits(withBatches: boolean): Promise<number[]> {
  const { clock, scheduler, batches, slow } = world(withBatches);
  open = batches;
  if (batches !== undefined) {
    for (const tenant of ["a", "b", "c"]) await batches.create({ items: items(300), tenant });
    await advance(clock, 5_000, 100); // the batches fill every slot and the queue
  }
  const waits: number[] = [];
  scheduler.on("started", (e) => e.priority === "interactive" && waits.push(e.waitMs));
  const calls: Promise<void>[] = [];
  for (let t = 0; t < 60_000; t += 700) {
    calls.push(scheduler.run(slow, { priority: "interactive", tenant: "chat" }));
    await advance(clock, 700, 100);
  }
  await advance(clock, 5_000, 250);
  await Promise.all(calls);
  expect(waits).toHaveLength(calls.length);
  return waits.sort((x, y) => x - y);
}

const p95 = (sorted: number[]) => sorted[Math.ceil(sorted.length * 0.95) - 1]!;

describe("sharing the scheduler", () => {
  it("interactive traffic keeps its wait times while 900 batch items run (same run, with and without)", async () => {
    const alone = await interactiveWaits(false);
    await open?.close();
    const beside = await interactiveWaits(true);
    expect(p95(alone)).toBe(0);
    // With every slot busy on batch items, an interactive call waits at most for the reserved slot
    // (1 of 4, the core's default) to free: never behind the 900 queued batch items.
    expect(p95(beside)).toBeLessThanOrEqual(HOLD_MS);
    expect(Math.max(...beside)).toBeLessThanOrEqual(HOLD_MS);
  });

  it("many batches from many tenants take turns: a tenant's share does not grow with its batches", async () => {
    const { clock, scheduler, batches } = world(true);
    open = batches;
    const started: string[] = [];
    scheduler.on("started", (e) => started.push(e.tenant));
    const doneAt = new Map<string, number>();
    batches!.on("done", ({ id }) => doneAt.set(id, clock.now()));
    const heavy = [];
    for (let i = 0; i < 5; i++) heavy.push(await batches!.create({ items: items(100), tenant: "heavy" }));
    const light = [];
    for (const tenant of ["t1", "t2", "t3"]) light.push(await batches!.create({ items: items(20), tenant }));
    await advance(clock, 40_000, 100);
    // The first 60 starts: 4 tenants, 15 each give or take the slots "heavy" took before the others
    // came, though "heavy" has 5 of the 8 batches (batch turns alone would give it 5/8, about 38).
    const first = started.slice(0, 60);
    const shares = ["heavy", "t1", "t2", "t3"].map((tenant) => first.filter((t) => t === tenant).length);
    expect(shares[0]).toBeLessThanOrEqual(24);
    for (const share of shares.slice(1)) expect(share).toBeGreaterThanOrEqual(12);
    // Batch items get 3 slots (the core keeps 1 of 4 for interactive): 0.75 items/s per tenant, so
    // 20 items in about 27 s, before any heavy batch (batch turns alone: 0.375/s, about 53 s).
    const lightEnd = Math.max(...light.map((b) => doneAt.get(b.id) ?? Number.POSITIVE_INFINITY));
    expect(lightEnd - light[0]!.createdAt).toBeLessThanOrEqual(35_000);
    for (const batch of heavy) expect(doneAt.has(batch.id)).toBe(false);
  });
});
