import { describe, expect, it } from "vitest";
import { flush, Harness } from "../test/harness.js";
import { createScheduler } from "./scheduler.js";

const runWith = (options: object): Promise<unknown> =>
  // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
  createScheduler({ priorities: { batch: {} } }).run(() => 1, options as any);

describe("per-call bounds", () => {
  it("refuses a limit so large that a cost could no longer be counted exactly", () => {
    expect(() => createScheduler({ maxConcurrency: 2 ** 29, priorities: { batch: {} } })).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION" }),
    );
  });

  it("counts the largest cost in full: two of them never run side by side", async () => {
    const h = new Harness({ maxConcurrency: 1_000_000, priorities: { batch: {} } });
    h.submit("a", { cost: 600_000 });
    h.submit("b", { cost: 600_000 });
    await flush();
    expect(h.startOrder).toEqual(["a"]);
    expect(h.scheduler.metrics().running).toBe(600_000);
    await h.finish("a");
    expect(h.startOrder).toEqual(["a", "b"]);
  });

  it.each([
    [{ cost: 0 }, "cost"],
    [{ cost: 1.5 }, "cost"],
    [{ cost: 2 }, "cost"],
    [{ cost: Number.NaN }, "cost"],
    [{ timeoutMs: 0 }, "timeoutMs"],
    [{ timeoutMs: Number.NaN }, "timeoutMs"],
    [{ timeoutMs: -5 }, "timeoutMs"],
    [{ timeoutMs: 1e13 }, "timeoutMs"],
    [{ timeoutMs: "5" }, "timeoutMs"],
    [{ priority: 5 }, "priority"],
    [{ tenant: "" }, "tenant"],
    [{ tenant: 7 }, "tenant"],
    [{ id: 7 }, "id"],
  ])("rejects %j with INVALID_OPTION naming the field", async (options, field) => {
    const scheduler = createScheduler({ maxConcurrency: 1, priorities: { batch: {} } });
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    const error = await scheduler.run(() => 1, options as any).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: expect.stringMatching(/^INVALID_(OPTION|PRIORITY)$/) });
    expect((error as Error).message).toContain(field);
    await expect(scheduler.onIdle()).resolves.toBeUndefined();
  });

  it("accepts a run timeout of Infinity", async () => {
    await expect(runWith({ timeoutMs: Number.POSITIVE_INFINITY })).resolves.toBe(1);
  });
});
