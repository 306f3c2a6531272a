// The throughput floor must do the job it is a floor for, or its figure means nothing: weighted
// turns between priorities, a reserved slot, tenants in turn, queue timeouts, a settled promise.
import { afterEach, describe, expect, it, vi } from "vitest";
import { FloorQueue } from "../../bench/lib/floor-queue.js";

const options = {
  concurrency: 1,
  priorities: [
    { weight: 5, reserved: 0, queueTimeoutMs: 1_000 },
    { weight: 1, reserved: 0, queueTimeoutMs: 1_000 },
  ],
};

/** A task that records its label when it starts and answers at once. */
function recorder(log: string[]) {
  return (label: string) => () => {
    log.push(label);
    return Promise.resolve(label);
  };
}

describe("FloorQueue", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("starts five of the first priority for each of the second, and tenants in turn", async () => {
    const log: string[] = [];
    const task = recorder(log);
    const queue = new FloorQueue(options);
    const pending: Array<Promise<unknown>> = [];
    for (let i = 0; i < 12; i++) pending.push(queue.run(task(`b${i}`), 1, "t"));
    // Tenant x queues three, then tenant y three: they start in turn, x, y, x, y...
    for (let i = 0; i < 6; i++) {
      const tenant = i < 3 ? "x" : "y";
      pending.push(queue.run(task(`a${tenant}${i}`), 0, tenant));
    }
    const values = await Promise.all(pending);
    queue.close();
    expect(values.slice(0, 2)).toEqual(["b0", "b1"]);
    // The first batch task took the free slot at once and spent the batch turn of the first round;
    // the second round starts with the first priority's five.
    expect(log.slice(0, 13)).toEqual([
      "b0",
      "ax0",
      "ay3",
      "ax1",
      "ay4",
      "ax2",
      "ay5",
      "b1",
      "b2",
      "b3",
      "b4",
      "b5",
      "b6",
    ]);
    expect(log).toHaveLength(18);
  });

  it("keeps a reserved slot free for its priority", async () => {
    const log: string[] = [];
    const task = recorder(log);
    const queue = new FloorQueue({
      concurrency: 2,
      priorities: [
        { weight: 1, reserved: 1, queueTimeoutMs: 1_000 },
        { weight: 1, reserved: 0, queueTimeoutMs: 1_000 },
      ],
    });
    let release: () => void = () => {};
    const held = queue.run(() => new Promise<void>((resolve) => (release = resolve)), 1, "t");
    const second = queue.run(task("b"), 1, "t");
    await Promise.resolve();
    expect(log).toEqual([]);
    const interactive = queue.run(task("a"), 0, "t");
    await interactive;
    expect(log).toEqual(["a"]);
    release();
    await Promise.all([held, second]);
    queue.close();
    expect(log).toEqual(["a", "b"]);
  });

  it("rejects a task still waiting at its queue deadline, and never starts it", async () => {
    vi.useFakeTimers();
    const log: string[] = [];
    const queue = new FloorQueue(options);
    let release: () => void = () => {};
    const held = queue.run(() => new Promise<void>((resolve) => (release = resolve)), 1, "t");
    const late = queue.run(recorder(log)("late"), 1, "t");
    const outcome = late.then(
      () => "resolved",
      (error: Error) => error.message,
    );
    await vi.advanceTimersByTimeAsync(1_001);
    expect(await outcome).toBe("queue timeout");
    release();
    await held;
    await vi.advanceTimersByTimeAsync(10);
    expect(log).toEqual([]);
    queue.close();
  });
});
