import { describe, expect, it } from "vitest";
import { DelayedStore } from "../test/delayed-store.js";
import { flush } from "../test/harness.js";
import { VirtualClock } from "./clock.js";
import { SchedulerError } from "./errors.js";
import { MemoryStore } from "./memory/memory-store.js";
import type { ResolvedOptions } from "./options.js";
import { createScheduler } from "./scheduler.js";
import type { StoreConfig, StoreHost, Ticket } from "./store.js";

/** A memory store that lets the test act as the store: see the host, make remove() fail. */
class OpenStore extends MemoryStore {
  host: StoreHost | null = null;
  failRemove = false;
  override attach(host: StoreHost, options: ResolvedOptions): void {
    this.host = host;
    super.attach(host, options);
  }
  override remove(ticket: Ticket): boolean {
    if (this.failRemove) throw new Error("connection lost");
    return super.remove(ticket);
  }
}

function setUp() {
  const store = new OpenStore();
  const clock = new VirtualClock();
  const scheduler = createScheduler({
    clock,
    store,
    maxConcurrency: 1,
    priorities: { batch: { queueTimeoutMs: 1_000 } },
  });
  const tickets: Ticket[] = [];
  const original = store.enqueue.bind(store);
  store.enqueue = (ticket) => {
    tickets.push(ticket);
    return original(ticket);
  };
  return { store, clock, scheduler, tickets };
}

describe("the store's own decisions", () => {
  it("rejects a waiting task the store dropped", async () => {
    const { store, scheduler, tickets } = setUp();
    void scheduler.run(() => new Promise(() => {}));
    const waiting = scheduler.run(() => "never");
    await flush();
    store.host!.fail(tickets[1]!, new Error("queue lost in a restart"));
    await expect(waiting).rejects.toMatchObject({ code: "STORE_UNAVAILABLE", id: "2", retryAfterMs: 1_000 });
    expect(scheduler.metrics().priorities.batch!.rejected).toEqual({ STORE_UNAVAILABLE: 1 });
  });

  it("passes on the store's own SchedulerError when it drops a task", async () => {
    const { store, scheduler, tickets } = setUp();
    void scheduler.run(() => new Promise(() => {}));
    const waiting = scheduler.run(() => "never");
    await flush();
    store.host!.fail(
      tickets[1]!,
      new SchedulerError("QUEUE_FULL", "full after the restart", { retryAfterMs: 500 }),
    );
    await expect(waiting).rejects.toMatchObject({ code: "QUEUE_FULL", retryAfterMs: 500 });
  });

  it("aborts a running task whose slot the store revoked, and forgets the slot", async () => {
    const { store, scheduler, tickets } = setUp();
    let signal: AbortSignal | undefined;
    const running = scheduler.run((context) => {
      signal = context.signal;
      return new Promise(() => {});
    });
    await flush();
    store.host!.revoke(tickets[0]!, new Error("lease lapsed"));
    await expect(running).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
    expect(signal!.aborted).toBe(true);
    await scheduler.onIdle();
  });

  it("does not hang close() when the store cannot remove a task", async () => {
    const { store, scheduler, clock } = setUp();
    const errors: unknown[] = [];
    scheduler.on("error", ({ error }) => errors.push(error));
    let finish!: () => void;
    void scheduler.run(() => new Promise<void>((resolve) => (finish = resolve)));
    const waiting = scheduler.run(() => "never");
    await flush();
    store.failRemove = true;
    clock.advance(1_000);
    await expect(waiting).rejects.toMatchObject({ code: "QUEUE_TIMEOUT" });
    finish();
    await flush();
    await scheduler.close();
    expect(errors).toHaveLength(1);
  });
});

describe("update() and the store", () => {
  /** A store without handOver whose configure fails as told: by throwing, or with a rejected promise. */
  class FailingStore extends DelayedStore {
    failure: "none" | "throw" | "reject" = "none";
    override configure(config: ResolvedOptions): Promise<void> {
      if (this.failure === "throw") throw new Error("store gone");
      if (this.failure === "reject") return Promise.reject(new Error("store gone"));
      return super.configure(config);
    }
  }

  it("refuses what the store cannot do synchronously, before anything changes", async () => {
    const store = new FailingStore();
    const scheduler = createScheduler({ store, priorities: { interactive: { weight: 5 }, batch: {} } });
    const before = scheduler.options;
    expect(() =>
      scheduler.update({ priorities: { interactive: { weight: 9, preempts: ["batch"] } } }),
    ).toThrow(expect.objectContaining({ code: "INVALID_OPTION" }));
    expect(scheduler.options).toBe(before);
    await scheduler.update({ priorities: { interactive: { weight: 7 } } }); // not refused in turn
    expect(scheduler.options.priorityByName.get("interactive")!.weight).toBe(7);
  });

  it("configures the store once per update, with the limit the adaptive limit moved to for it", () => {
    const configs: StoreConfig[] = [];
    class Recording extends MemoryStore {
      override configure(config: StoreConfig): void {
        configs.push(config);
        super.configure(config);
      }
    }
    const scheduler = createScheduler({
      store: new Recording(),
      maxConcurrency: { initial: 10, min: 1, max: 16 },
      priorities: { interactive: {}, batch: { maxConcurrency: 2 } },
    });
    configs.length = 0;
    void scheduler.update({
      maxConcurrency: { min: 1, max: 4 },
      priorities: { batch: { maxConcurrency: 4 } },
    });
    expect(configs).toHaveLength(1);
    expect(configs[0]!.maxConcurrency).toBe(4);
    expect(configs[0]!.priorities.map((p) => p.maxConcurrency)).toEqual([4, 4]);
  });

  it.each(["throw", "reject"] as const)(
    "resolves when the store fails to take the configuration (%s), which is an error event",
    async (failure) => {
      const store = new FailingStore();
      const scheduler = createScheduler({ store, maxConcurrency: 4 });
      const errors: unknown[] = [];
      scheduler.on("error", ({ error }) => errors.push(error));
      await flush();
      store.failure = failure;
      await expect(scheduler.update({ maxConcurrency: 6 })).resolves.toBeUndefined();
      expect(scheduler.options.maxConcurrency).toBe(6);
      expect(errors).toEqual([new Error("store gone")]);
    },
  );
});

describe("a store that answers asynchronously", () => {
  it("runs tasks in the same order as the in-memory store", async () => {
    const order = async (remote: boolean) => {
      const scheduler = createScheduler({
        maxConcurrency: 1,
        store: remote ? new DelayedStore() : undefined,
        priorities: { interactive: { weight: 3 }, batch: { weight: 1 } },
      });
      const started: string[] = [];
      let unblock!: () => void;
      const all: Array<Promise<unknown>> = [
        scheduler.run(() => new Promise<void>((resolve) => (unblock = resolve))),
      ];
      await flush(50);
      for (let i = 0; i < 8; i++) {
        for (const priority of ["batch", "interactive"]) {
          all.push(
            scheduler.run(() => started.push(`${priority[0]}${i}`), { priority, tenant: `t${i % 2}` }),
          );
        }
      }
      await flush(50);
      unblock();
      await Promise.all(all);
      return started;
    };
    const local = await order(false);
    expect(local).toHaveLength(16);
    expect(local.slice(0, 4)).toEqual(["i0", "b0", "i1", "i2"]); // weighted 3:1, tenants taking turns
    expect(await order(true)).toEqual(local);
  });
});
