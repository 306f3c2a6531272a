import { afterEach, describe, expect, it, vi } from "vitest";
import { flush, Harness } from "../test/harness.js";
import { SchedulerError } from "./errors.js";
import { MemoryStore } from "./memory/memory-store.js";
import type { EnqueueResult, Ticket } from "./store.js";
import { TenantCredits } from "./tenant-credits.js";

const lanes = { batch: { queueTimeoutMs: 10_000, maxQueue: 100 } };

/** A memory store that refuses the next enqueue with the store's own QUEUE_FULL, as a shared store does. */
class RefusingStore extends MemoryStore {
  refuseNext = false;
  rate: number | undefined;

  override enqueue(ticket: Ticket): EnqueueResult {
    if (!this.refuseNext) return super.enqueue(ticket);
    this.refuseNext = false;
    throw new SchedulerError("QUEUE_FULL", "The shared batch queue is full");
  }

  drainRate(): number | undefined {
    return this.rate;
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("claimed retries", () => {
  it("keep their place in line while the tenant has no recent refusal", async () => {
    const h = new Harness({ maxConcurrency: 1, priorities: lanes });
    h.submit("blocker");
    h.submit("a");
    h.submit("claim", { claimedRetry: true });
    await flush();
    await h.finishInOrder(3);
    expect(h.startOrder).toEqual(["blocker", "a", "claim"]);
  });

  it("go to the front once per recent refusal of their tenant, within the retry window", async () => {
    const h = new Harness({
      maxConcurrency: 1,
      priorities: { batch: { maxQueue: 1 } },
      retryWindowMs: 5_000,
    });
    const retries: Array<[string, boolean]> = [];
    h.scheduler.on("queued", ({ id, retry }) => retries.push([id, retry]));
    h.submit("blocker");
    h.submit("a", { id: "a" });
    h.submit("refused", { id: "refused" });
    await flush();
    await h.finish("blocker");
    h.submit("claim-1", { id: "claim-1", claimedRetry: true });
    await h.finish("a");
    h.submit("claim-2", { id: "claim-2", claimedRetry: true });
    await h.finish("claim-1");
    h.clock.advance(6_000);
    await h.finish("claim-2");
    expect(retries).toEqual([
      ["a", false],
      ["claim-1", true],
      ["claim-2", false],
    ]);
  });

  it("credits expire after the window and memory stays bounded", () => {
    const credits = new TenantCredits(1_000, 3);
    for (let i = 0; i < 10; i++) credits.add(`t${i}`, 0);
    expect(credits.size).toBe(3);
    expect(credits.take("t0", 0)).toBe(false);
    expect(credits.take("t9", 0)).toBe(true);
    expect(credits.take("t9", 0)).toBe(false);
    expect(credits.take("t8", 1_001)).toBe(false);
    expect(credits.size).toBe(0);
  });
});

describe("a QUEUE_FULL from the store", () => {
  it("is remembered for retry-to-front like the in-memory one", async () => {
    const store = new RefusingStore();
    const h = new Harness({ maxConcurrency: 1, priorities: lanes, store });
    h.submit("blocker");
    h.submit("a");
    store.refuseNext = true;
    h.submit("refused", { id: "req-7" });
    await flush();
    expect(h.errorCode("refused")).toBe("QUEUE_FULL");
    h.submit("again", { id: "req-7" });
    await flush();
    await h.finishInOrder(3);
    expect(h.startOrder).toEqual(["blocker", "again", "a"]);
  });
});

describe("retry hints", () => {
  async function refusedAfter(random: number, store?: RefusingStore): Promise<number> {
    vi.spyOn(Math, "random").mockReturnValue(random);
    const h = new Harness({ maxConcurrency: 1, priorities: { batch: { maxQueue: 1 } }, store });
    h.submit("blocker");
    h.submit("waiting");
    h.submit("over");
    await flush();
    return (h.outcomes.get("over")!.value as SchedulerError).retryAfterMs!;
  }

  it("spread by at most 20% either way", async () => {
    const store = (): RefusingStore => Object.assign(new RefusingStore(), { rate: 10 });
    // 10 starts per second, one waiting: the queue drains in 200 ms.
    expect(await refusedAfter(0.5, store())).toBe(200);
    expect(await refusedAfter(0, store())).toBe(160);
    expect(await refusedAfter(0.999_999, store())).toBe(240);
  });

  it("use the store's drain rate over every instance when it has one", async () => {
    const store = new RefusingStore();
    store.rate = 4; // starts per second over every instance: one waiting drains in 500 ms
    expect(await refusedAfter(0.5, store)).toBe(500);
    // This instance's own single start would have said about 2 ms (raised to the 100 ms floor).
    expect(await refusedAfter(0.5)).toBe(100);
  });

  it("never tell a caller who waited the whole queue timeout to wait that long again", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999_999);
    const h = new Harness({ maxConcurrency: 1, priorities: { batch: { queueTimeoutMs: 1_000 } } });
    h.submit("blocker");
    h.submit("late");
    await flush();
    h.clock.advance(1_000);
    await flush();
    const error = h.outcomes.get("late")!.value as SchedulerError;
    expect(error.code).toBe("QUEUE_TIMEOUT");
    expect(error.retryAfterMs).toBeLessThanOrEqual(500);
  });
});
