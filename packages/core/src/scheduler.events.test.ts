import { describe, expect, it } from "vitest";
import { flush, Harness } from "../test/harness.js";
import { VirtualClock } from "./clock.js";

describe("event timings", () => {
  it("completed and failed carry the started event's waitMs and never a negative runMs", async () => {
    const clock = new VirtualClock(1_000.3);
    const h = new Harness({ clock, maxConcurrency: 1, priorities: { batch: {} } });
    const waits = new Map<string, number>();
    const ends: Array<{ id: string; waitMs: number; runMs: number }> = [];
    h.scheduler.on("started", ({ id, waitMs }) => waits.set(id, waitMs));
    h.scheduler.on("completed", ({ id, waitMs, runMs }) => ends.push({ id, waitMs, runMs }));
    h.scheduler.on("failed", ({ id, waitMs, runMs }) => ends.push({ id, waitMs, runMs }));
    h.submit("a", { id: "a" });
    h.submit("b", { id: "b" });
    h.submit("c", { id: "c" });
    await flush();
    clock.advance(0.4); // a ends at 1000.7: b starts there and ends at once
    await h.finish("a");
    await h.finish("b");
    clock.advance(0.3);
    h.gates.get("c")!.fail(new Error("no"));
    await flush();
    expect(ends.map((end) => end.id)).toEqual(["a", "b", "c"]);
    for (const end of ends) {
      expect(end.waitMs).toBe(waits.get(end.id));
      expect(end.runMs).toBeGreaterThanOrEqual(0);
    }
    expect(ends[1]!.waitMs).toBeCloseTo(0.4, 10);
    expect(ends[2]!.runMs).toBeCloseTo(0.3, 10);
  });
});
