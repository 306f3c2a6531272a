import { afterEach, describe, expect, it } from "vitest";
import { advance, items, setup } from "../test/helpers.js";
import type { ServedBatches } from "./create.js";
import type { ExecuteContext } from "./types.js";

let open: ServedBatches | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const ITEM_MS = 100;
const MINUTE = 60_000;

/**
 * Four slots (three for batch work: one is reserved for interactive calls), every call takes ITEM_MS of
 * virtual time; `done` records which batch each item was of.
 */
function world(extra: Parameters<typeof setup>[1] = {}) {
  const done: string[] = [];
  const holder: { clock?: ReturnType<typeof setup>["clock"] } = {};
  const world = setup(
    async (context: ExecuteContext) => {
      await new Promise<void>((resolve) => holder.clock!.setTimer(resolve, ITEM_MS));
      done.push(context.batchId);
      return { status: 200, body: null };
    },
    { maxInFlight: 4, ...extra },
  );
  holder.clock = world.clock;
  open = world.batches;
  return { ...world, done };
}

describe("batch order across batches", () => {
  it("a batch created later with an earlier deadline finishes first; FIFO by creation when asked", async () => {
    for (const batchOrder of ["deadline", "created"] as const) {
      const { clock, batches } = world({ batchOrder, orderTieMs: 0 });
      const relaxed = await batches.create({
        items: items(40),
        tenant: "a",
        completionWindowMs: 60 * MINUTE,
      });
      await advance(clock, 250, 10);
      const urgent = await batches.create({ items: items(20), tenant: "b", completionWindowMs: 10 * MINUTE });
      await advance(clock, 3_000, 20);
      const r = (await batches.get(relaxed.id))!;
      const u = (await batches.get(urgent.id))!;
      expect([r.status, u.status]).toEqual(["completed", "completed"]);
      if (batchOrder === "deadline") expect(u.completedAt!).toBeLessThan(r.completedAt!);
      else expect(r.completedAt!).toBeLessThan(u.completedAt!);
      await batches.close();
    }
  });

  it("a batch near its deadline gets the larger share while it runs", async () => {
    const { clock, batches, done } = world();
    const relaxed = await batches.create({ items: items(200), tenant: "a", completionWindowMs: 60 * MINUTE });
    await advance(clock, 500, 10);
    const before = done.length;
    const urgent = await batches.create({ items: items(40), tenant: "b", completionWindowMs: 2 * MINUTE });
    await advance(clock, 1_000, 10); // 40 items on 3 slots: 1.33 s of work
    const during = done.slice(before);
    const mine = during.filter((id) => id === urgent.id).length;
    // the relaxed items this instance already held (maxInFlight 4) finish; after them only urgent ones
    expect(mine).toBeGreaterThanOrEqual(during.length - 4);
    expect(mine).toBeGreaterThanOrEqual(25);
    expect((await batches.get(relaxed.id))?.status).toBe("in_progress");
  });

  it("tenants whose deadlines tie share equally", async () => {
    const { clock, batches } = world();
    const a = await batches.create({ items: items(40), tenant: "a", completionWindowMs: 10 * MINUTE });
    const b = await batches.create({ items: items(40), tenant: "b", completionWindowMs: 10 * MINUTE });
    await advance(clock, 1_000, 10); // about 30 of the 80 items
    const countA = (await batches.get(a.id))!.requestCounts.completed;
    const countB = (await batches.get(b.id))!.requestCounts.completed;
    expect(countA + countB).toBeGreaterThanOrEqual(24);
    expect(Math.abs(countA - countB)).toBeLessThanOrEqual(4);
  });
});

describe("estimatedCompletionAt", () => {
  it("is null before an item ends, within 5% of the real end at a quarter, null once completed", async () => {
    const { clock, batches } = world({ tenant: () => "a" });
    const batch = await batches.create({ items: items(80), tenant: "a" });
    expect((await batches.get(batch.id))?.estimatedCompletionAt).toBeNull();
    let quarter = (await batches.get(batch.id))!;
    while (quarter.requestCounts.completed < 20) {
      await advance(clock, 10, 10);
      quarter = (await batches.get(batch.id))!;
    }
    expect(quarter.estimatedCompletionAt).not.toBeNull();
    const answer = await batches.fetch(new Request(`http://g.test/v1/batches/${batch.id}`));
    const body = (await answer.json()) as { estimated_completion_at: number | null };
    expect(body.estimated_completion_at).toBe(Math.floor(quarter.estimatedCompletionAt! / 1000));
    await advance(clock, 3_000, 10); // 80 items on 3 slots take 2.7 s
    const end = (await batches.get(batch.id))!;
    expect(end.status).toBe("completed");
    expect(end.estimatedCompletionAt).toBeNull();
    const actual = end.completedAt! - batch.createdAt;
    const estimated = quarter.estimatedCompletionAt! - batch.createdAt;
    expect(Math.abs(estimated - actual) / actual).toBeLessThan(0.05);
    const [listed] = await batches.list({ tenant: "a" });
    expect(listed).toHaveProperty("estimatedCompletionAt", null);
  });

  it("counts the work of a batch that opens ahead of it in the claim order", async () => {
    const { clock, batches } = world();
    const relaxed = await batches.create({ items: items(200), tenant: "a", completionWindowMs: 60 * MINUTE });
    await advance(clock, 1_000, 10); // about 30 items at 3 a tenth of a second
    const urgent = await batches.create({ items: items(120), tenant: "b", completionWindowMs: 2 * MINUTE });
    await advance(clock, 20, 10);
    const read = clock.now();
    const { estimatedCompletionAt, requestCounts } = (await batches.get(relaxed.id))!;
    const ownRate = read + ((200 - requestCounts.completed) * (read - 1_000_000)) / requestCounts.completed;
    await advance(clock, 12_000, 10); // 290 items left on 3 slots take 9.7 s
    const [r, u] = [(await batches.get(relaxed.id))!, (await batches.get(urgent.id))!];
    expect([r.status, u.status]).toEqual(["completed", "completed"]);
    const left = r.completedAt! - read;
    expect(Math.abs(estimatedCompletionAt! - r.completedAt!) / left).toBeLessThan(0.05);
    // its own rate alone would not see the urgent batch's 120 items
    expect((r.completedAt! - ownRate) / left).toBeGreaterThan(0.3);
  });
});
