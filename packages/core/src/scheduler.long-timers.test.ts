import { describe, expect, it } from "vitest";
import { flush, Harness } from "../test/harness.js";
import { NodeLikeClock } from "../test/node-like-clock.js";
import { createScheduler } from "./scheduler.js";

const DAY = 86_400_000;

describe("timeouts longer than a runtime timer can hold", () => {
  it("keeps a 30-day queue timeout: no early rejection, no delay above 2^31-1 ms", async () => {
    const clock = new NodeLikeClock(1_000);
    const h = new Harness({ clock, maxConcurrency: 1, priorities: { batch: { queueTimeoutMs: 30 * DAY } } });
    h.submit("blocker");
    h.submit("waiting");
    await flush();
    clock.advance(29 * DAY);
    await flush();
    expect(h.outcomes.has("waiting")).toBe(false);
    expect(clock.overflows).toBe(0);
    clock.advance(DAY);
    await flush();
    expect(h.errorCode("waiting")).toBe("QUEUE_TIMEOUT");
  });

  it("keeps a 40-day run timeout", async () => {
    const clock = new NodeLikeClock(1_000);
    const h = new Harness({ clock, maxConcurrency: 1, priorities: { batch: {} } });
    h.submit("long", { timeoutMs: 40 * DAY });
    await flush();
    clock.advance(39 * DAY);
    await flush();
    expect(h.outcomes.has("long")).toBe(false);
    expect(h.gates.get("long")!.signal!.aborted).toBe(false);
    clock.advance(DAY);
    await flush();
    expect(h.errorCode("long")).toBe("RUN_TIMEOUT");
    expect(clock.overflows).toBe(0);
  });
});

describe("close() timeouts", () => {
  it("waits forever with timeoutMs: Infinity while draining", async () => {
    const clock = new NodeLikeClock(1_000);
    const h = new Harness({ clock, maxConcurrency: 1, priorities: { batch: { queueTimeoutMs: Infinity } } });
    h.submit("running");
    h.submit("queued");
    await flush();
    let closed = false;
    const closing = h.scheduler.close({ drain: true, timeoutMs: Number.POSITIVE_INFINITY });
    closing.then(() => (closed = true));
    clock.advance(10 * DAY);
    await flush();
    expect(h.outcomes.size).toBe(0);
    expect(h.gates.get("running")!.signal!.aborted).toBe(false);
    await h.finish("running");
    await h.finish("queued");
    await closing;
    expect(closed).toBe(true);
    expect(clock.overflows).toBe(0);
    expect([h.outcomes.get("running")!.ok, h.outcomes.get("queued")!.ok]).toEqual([true, true]);
  });

  it("waits out a timeout longer than 2^31-1 ms before it stops the tasks", async () => {
    const clock = new NodeLikeClock(1_000);
    const h = new Harness({ clock, maxConcurrency: 1, priorities: { batch: {} } });
    h.submit("running");
    await flush();
    const closing = h.scheduler.close({ drain: true, timeoutMs: 30 * DAY });
    clock.advance(29 * DAY);
    await flush();
    expect(h.outcomes.size).toBe(0);
    clock.advance(DAY);
    await flush();
    expect(h.errorCode("running")).toBe("CLOSED");
    clock.advance(5_000);
    await closing;
  });

  it.each([
    [{ drain: "yes" }, "`drain` to be a boolean"],
    [{ timeoutMs: -1 }, "`timeoutMs`"],
    [{ timeoutMs: Number.NaN }, "`timeoutMs`"],
    [{ drian: true }, "Unknown option `drian`; did you mean `drain`?"],
  ])("rejects close(%j) with INVALID_OPTION and stays open", async (options, message) => {
    const scheduler = createScheduler();
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    const error = await scheduler.close(options as any).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INVALID_OPTION", message: expect.stringContaining(message) });
    expect(scheduler.closed).toBe(false);
    await expect(scheduler.run(() => 2)).resolves.toBe(2);
    await expect(scheduler.close()).resolves.toBeUndefined();
  });
});
