import { afterEach, describe, expect, it } from "vitest";
import { advance, items, ok, scripted, setup } from "../test/helpers.js";
import type { Batches } from "./batches.js";
import { MemoryBatchStore } from "./memory-store.js";

const open: Batches[] = [];
afterEach(async () => {
  for (const batches of open.splice(0)) await batches.close();
});

describe("events across instances sharing a store", () => {
  it("the instance that created a batch hears its progress and its end, though another ran every item", async () => {
    const store = new MemoryBatchStore();
    const front = setup(scripted(ok).execute, { store, maxInFlight: 0, pollMs: 500 }); // API only
    const { execute, calls } = scripted(ok);
    const worker = setup(execute, { store, pollMs: 500 });
    open.push(front.batches, worker.batches);
    const heard: string[] = [];
    front.batches.on("progress", ({ status, requestCounts: c }) => heard.push(`${status} ${c.completed}`));
    front.batches.on("done", ({ status }) => heard.push(`done ${status}`));
    const batch = await front.batches.create({ items: items(5), tenant: "t" });
    await advance(worker.clock, 1_000);
    expect(calls).toHaveLength(5);
    expect(front.batches.inFlight).toBe(0);
    expect(heard).toEqual(["in_progress 0"]); // not yet: the front reads the store at its heartbeat
    await advance(front.clock, 1_000);
    expect(heard).toEqual(["in_progress 0", "completed 5", "done completed"]);
    await advance(front.clock, 2_000);
    expect(heard).toHaveLength(3); // each change once; a finished batch is no longer read
    expect((await front.batches.get(batch.id))?.status).toBe("completed");
  });

  it("the instance that ran the items announces each change once, not again at its heartbeat", async () => {
    const { batches, clock } = setup(scripted(ok).execute, { pollMs: 500 });
    open.push(batches);
    const done: string[] = [];
    let progress = 0;
    batches.on("progress", () => progress++);
    batches.on("done", ({ id }) => done.push(id));
    const batch = await batches.create({ items: items(3) });
    await advance(clock, 3_000);
    expect(done).toEqual([batch.id]);
    expect(progress).toBe(4); // in_progress 0, then 1, 2, 3 completed
  });
});
