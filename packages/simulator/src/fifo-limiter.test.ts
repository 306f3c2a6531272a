import { describe, expect, it } from "vitest";
import { FifoLimiter, type Release } from "./fifo-limiter.js";

describe("FifoLimiter", () => {
  it("runs at most `limit` at once, in arrival order, whatever the label", () => {
    const fifo = new FifoLimiter(2);
    const started: string[] = [];
    const releases = new Map<string, Release>();
    for (const [name, label] of [
      ["b1", "batch"],
      ["b2", "batch"],
      ["b3", "batch"],
      ["chat", "interactive"],
    ]) {
      fifo.enter(
        label!,
        (release) => {
          started.push(name!);
          releases.set(name!, release);
        },
        () => {},
      );
    }
    expect(started).toEqual(["b1", "b2"]);
    expect(fifo.snapshot()).toEqual({ queued: { batch: 1, interactive: 1 }, running: { batch: 2 } });
    releases.get("b1")!();
    releases.get("b1")!(); // idempotent
    expect(started).toEqual(["b1", "b2", "b3"]);
    releases.get("b2")!();
    expect(started).toEqual(["b1", "b2", "b3", "chat"]);
    expect(fifo.running).toBe(2);
    expect(fifo.queued).toBe(0);
  });

  it("drops a waiting request whose signal aborts, and refuses an aborted one at once", async () => {
    const fifo = new FifoLimiter(1);
    const first = await fifo.acquire("batch");
    const controller = new AbortController();
    const waiting = fifo.acquire("interactive", controller.signal);
    controller.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    expect(fifo.queued).toBe(0);
    await expect(fifo.acquire("interactive", controller.signal)).rejects.toThrow("gone");
    const next = fifo.acquire("batch");
    first();
    expect(typeof (await next)).toBe("function");
  });

  it("validates its limit", () => {
    expect(() => new FifoLimiter(0)).toThrow("Expected `limit` to be a positive integer, got `0` (number)");
  });
});
