import { describe, expect, it } from "vitest";
import { flush, Harness } from "../test/harness.js";
import { VirtualClock } from "./clock.js";
import { MemoryStore } from "./memory/memory-store.js";
import { createScheduler } from "./scheduler.js";

/** A memory store whose chosen methods throw. */
class BrokenStore extends MemoryStore {
  readonly broken = new Set<string>();

  override depth(priority: string): number {
    if (this.broken.has("depth")) throw new Error("depth broke");
    return super.depth(priority);
  }

  override tryGrant(ticket: Parameters<MemoryStore["tryGrant"]>[0]): boolean {
    if (this.broken.has("tryGrant")) throw new Error("tryGrant broke");
    return super.tryGrant(ticket);
  }

  override detach(): void {
    if (this.broken.has("detach")) throw new Error("detach broke");
    super.detach();
  }
}

describe("hostile callbacks and stores", () => {
  it("rejects, never throws at, a caller whose queueing hits a custom clock that throws", async () => {
    const clock = new VirtualClock();
    const broken = {
      now: () => clock.now(),
      setTimer: (): never => {
        throw new Error("timer broke");
      },
      clearTimer: () => {},
    };
    const scheduler = createScheduler({ clock: broken, maxConcurrency: 1, priorities: { batch: {} } });
    void scheduler.run(() => new Promise(() => {})); // holds the one slot: the next task queues
    let queued: Promise<unknown> | undefined;
    expect(() => {
      queued = scheduler.run(() => "never");
    }).not.toThrow();
    await expect(queued).rejects.toThrow("timer broke");
  });

  it("settles a task whose result is a thenable with a throwing then, and frees its slot", async () => {
    const scheduler = createScheduler({ maxConcurrency: 1, priorities: { batch: {} } });
    const hostile = {
      // biome-ignore lint/suspicious/noThenProperty: a hostile thenable on purpose
      then() {
        throw new Error("then broke");
      },
    };
    await expect(scheduler.run(() => hostile)).rejects.toThrow("then broke");
    expect(scheduler.metrics().running).toBe(0);
    await expect(scheduler.run(() => 3)).resolves.toBe(3);
  });

  it("still answers a refused caller when the store's depth throws", async () => {
    const store = new BrokenStore();
    const h = new Harness({ maxConcurrency: 1, priorities: { batch: { maxQueue: 1 } }, store });
    const errors: unknown[] = [];
    h.scheduler.on("error", ({ error }) => errors.push(error));
    store.broken.add("depth");
    h.submit("a");
    h.submit("b");
    h.submit("c");
    await flush();
    expect(h.errorCode("c")).toBe("QUEUE_FULL");
    expect(errors).toHaveLength(1);
    await h.finishInOrder(2);
    await expect(h.scheduler.onIdle()).resolves.toBeUndefined();
  });

  it("reports a store whose tryGrant or detach throws, and still closes", async () => {
    const store = new BrokenStore();
    const scheduler = createScheduler({ store });
    const errors: unknown[] = [];
    scheduler.on("error", ({ error }) => errors.push(error));
    store.broken.add("tryGrant");
    store.broken.add("detach");
    expect(scheduler.tryAcquire()).toBeUndefined();
    await expect(scheduler.close()).resolves.toBeUndefined();
    expect(errors.map((error) => (error as Error).message)).toEqual(["tryGrant broke", "detach broke"]);
  });

  it("refuses a clock or store without the methods it needs", () => {
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    expect(() => createScheduler({ clock: { now: () => 0 } as any })).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringContaining("`clock`") }),
    );
    // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
    expect(() => createScheduler({ store: {} as any })).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringContaining("`store`") }),
    );
  });

  it("keeps nothing on the books for a signal whose addEventListener throws", async () => {
    const scheduler = createScheduler({ maxConcurrency: 1 });
    const signal = new AbortController().signal;
    signal.addEventListener = () => {
      throw new Error("listener broke");
    };
    await expect(scheduler.run(() => 1, { signal })).rejects.toThrow("listener broke");
    await expect(scheduler.onIdle()).resolves.toBeUndefined();
    await expect(scheduler.close()).resolves.toBeUndefined();
  });

  it("a virtual clock refuses to move by NaN or backwards", () => {
    const clock = new VirtualClock(5);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(clock.now()).toBe(5);
  });
});

/** Answers an enqueue a few turns later, but takes the queue out at once: close() can overtake it. */
class SlowEnqueueStore extends MemoryStore {
  override enqueue(ticket: Parameters<MemoryStore["enqueue"]>[0]): ReturnType<MemoryStore["enqueue"]> {
    return flush(5).then(() => super.enqueue(ticket)) as unknown as ReturnType<MemoryStore["enqueue"]>;
  }
}

describe("close() while a remote store is still answering", () => {
  it("rejects a task whose enqueue answer arrives after close() without waiting for its queue timeout", async () => {
    const h = new Harness({
      maxConcurrency: 1,
      priorities: { batch: { queueTimeoutMs: 60_000 } },
      store: new SlowEnqueueStore(),
    });
    await flush();
    h.submit("running");
    await flush();
    h.submit("late"); // its enqueue is still on its way when close() asks the store for the queue
    let closed = false;
    const closing = h.scheduler.close({ timeoutMs: Number.POSITIVE_INFINITY }).then(() => {
      closed = true;
    });
    await flush();
    expect(h.errorCode("late")).toBe("CLOSED");
    await h.finish("running");
    await flush();
    expect(closed).toBe(true);
    await closing;
  });
});
