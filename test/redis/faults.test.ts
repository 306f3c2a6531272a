import { type Permit, SchedulerError } from "@llm-scheduler/core";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { instance, redisState, sleep, useRedisServer, waitFor } from "./helpers.js";

const redis = useRedisServer();

async function state(prefix: string): Promise<{ running: number; queued: number }> {
  const admin = new Redis(redis.server.url);
  try {
    return await redisState(admin, prefix);
  } finally {
    admin.disconnect();
  }
}

const OPTIONS = {
  maxConcurrency: 4,
  priorities: { interactive: { queueTimeoutMs: 30_000 }, batch: { queueTimeoutMs: 30_000 } },
};

describe("Redis stopped and restarted mid-run", () => {
  it("fail-closed: rejects new work at once and the waiting tickets when reconnecting fails, long before their queue timeout", async () => {
    const prefix = "fault-closed:";
    // defaults: leaseMs 10 s, so the heartbeat and the reconnection attempts come every second
    const gateway = instance(redis.server.url, { prefix, commandTimeoutMs: 500 }, OPTIONS);
    const held = await Promise.all([0, 1, 2, 3].map(() => gateway.scheduler.acquire()));
    const waiting = [gateway.scheduler.acquire(), gateway.scheduler.acquire({ priority: "batch" })].map((p) =>
      p.catch((error: unknown) => ({ error, at: performance.now() })),
    );
    await waitFor(
      () => gateway.store.depth("interactive") + gateway.store.depth("batch") === 2,
      2_000,
      "queued",
    );

    const stoppedAt = performance.now();
    await redis.server.stop();
    const failure = await gateway.scheduler.run(() => "ran").catch((error: unknown) => error);
    expect((failure as SchedulerError).code).toBe("STORE_UNAVAILABLE");
    expect(gateway.store.status).toBe("unavailable");
    for (const outcome of await Promise.all(waiting)) {
      const { error, at } = outcome as { error: SchedulerError; at: number };
      expect(error).toBeInstanceOf(SchedulerError);
      expect(error.code).toBe("STORE_UNAVAILABLE");
      expect(error.retryAfterMs).toBe(1_000); // the next reconnection attempt
      expect(at - stoppedAt).toBeLessThan(3_000); // queue timeout: 30 s
    }
    expect(gateway.scheduler.metrics().rejected.STORE_UNAVAILABLE).toBe(3);

    await redis.server.restart();
    await waitFor(() => gateway.store.status === "connected", 5_000, "reconnected");
    // the outage was shorter than a lease: the tasks that ran through it are counted again
    await waitFor(async () => (await state(prefix)).running === 4, 3_000, "running tasks adopted");
    expect(held.every((permit) => !permit.signal.aborted)).toBe(true);
    for (const permit of held) permit.release();
    await expect(gateway.scheduler.run(() => "after")).resolves.toBe("after");
    await waitFor(async () => (await state(prefix)).running === 0, 3_000, "all released");
    expect(await state(prefix)).toEqual({ running: 0, queued: 0 });
    await gateway.close();
  });

  it("fail-closed: one slow reply drops nothing that waits: the tickets are sent again once Redis answers", async () => {
    const prefix = "fault-slow:";
    const gateway = instance(redis.server.url, { prefix, commandTimeoutMs: 200 }, OPTIONS);
    const held = await Promise.all([0, 1, 2, 3].map(() => gateway.scheduler.acquire()));
    const waiting = gateway.scheduler.acquire();
    await waitFor(() => gateway.store.depth("interactive") === 1, 2_000, "queued");

    redis.server.pause();
    try {
      const failure = await gateway.scheduler.run(() => {}).catch((error: unknown) => error);
      expect((failure as SchedulerError).code).toBe("STORE_UNAVAILABLE");
    } finally {
      redis.server.resume();
    }
    await waitFor(() => gateway.store.status === "connected", 5_000, "back");
    // the task refused during the pause reached Redis late; it was taken out again on reconnection
    await waitFor(async () => (await state(prefix)).queued === 1, 3_000, "only the waiting ticket queued");
    held[0]!.release();
    const permit = await waiting;
    expect(permit.held).toBe(true);
    for (const other of [...held.slice(1), permit]) other.release();
    await waitFor(async () => (await state(prefix)).running === 0, 3_000, "all released");
    expect(await state(prefix)).toEqual({ running: 0, queued: 0 });
    await gateway.close();
  });

  it("fail-closed: tasks that run through an outage longer than leaseMs are stopped before their leases lapse", async () => {
    const prefix = "fault-lapsed:";
    const gateway = instance(redis.server.url, { prefix, leaseMs: 300, commandTimeoutMs: 500 }, OPTIONS);
    const permit = await gateway.scheduler.acquire();
    const ran = gateway.scheduler
      .run(
        ({ signal }) =>
          new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      )
      .catch((error: unknown) => error);
    await waitFor(async () => (await state(prefix)).running === 2, 2_000, "both running");

    const stoppedAt = performance.now();
    await redis.server.stop();
    // the lease watchdog stops them while Redis is still away (it comes back only after this), within
    // about a lease (300 ms) of the last renewal; the bound is generous for a busy machine
    await waitFor(() => permit.signal.aborted, 5_000, "the permit's signal aborted");
    expect(performance.now() - stoppedAt).toBeLessThan(1_000);
    expect(((await ran) as SchedulerError).code).toBe("STORE_UNAVAILABLE");
    expect((permit.signal.reason as SchedulerError).code).toBe("STORE_UNAVAILABLE");
    await sleep(600);
    await redis.server.restart();
    await waitFor(() => gateway.store.status === "connected", 5_000, "back");
    await gateway.scheduler.onIdle(); // nothing is left on the scheduler's books
    expect(gateway.scheduler.metrics()).toMatchObject({ running: 0, failed: 2, tenants: [] });
    permit.release(); // its slot is gone already: nothing more is released
    await expect(gateway.scheduler.run(() => "after")).resolves.toBe("after");
    await waitFor(async () => (await state(prefix)).running === 0, 3_000, "released");
    expect(await state(prefix)).toEqual({ running: 0, queued: 0 });
    await gateway.close();
  });

  it("a waiting ticket sent again after Redis lost it fails with QUEUE_FULL when the queue filled up meanwhile", async () => {
    const prefix = "fault-refill:";
    const options = { maxConcurrency: 1, priorities: { a: { maxQueue: 1, queueTimeoutMs: 30_000 } } };
    // no heartbeat during the test: the store notices the loss on its next call
    const gateway = instance(redis.server.url, { prefix, leaseMs: 180_000, pollMs: 60_000 }, options);
    const running = await gateway.scheduler.acquire();
    const first = gateway.scheduler.acquire().catch((error: unknown) => error);
    await waitFor(() => gateway.store.depth("a") === 1, 2_000, "queued");

    const admin = new Redis(redis.server.url);
    await admin.del(...(await admin.keys(`${prefix}*`))); // Redis lost everything under the prefix
    const other = instance(redis.server.url, { prefix }, options);
    const otherRunning = await other.scheduler.acquire();
    const otherWaiting = other.scheduler.acquire();
    await waitFor(() => other.store.depth("a") === 1, 2_000, "the other instance's ticket queued");

    const second = gateway.scheduler.acquire().catch((error: unknown) => error); // finds itself unregistered
    for (const outcome of [await first, await second]) {
      expect(outcome).toBeInstanceOf(SchedulerError);
      expect((outcome as SchedulerError).code).toBe("QUEUE_FULL");
    }
    expect(gateway.scheduler.metrics().rejected.QUEUE_FULL).toBe(2);
    // The gateway found the state re-created by an instance that had not known it, and held grants; it
    // was the one instance live before, so its check-in (with its running task) ended that at once,
    // not after its lease (180 s).
    expect(await admin.hget(`${prefix}state`, "rec")).toBeNull();
    running.release();
    otherRunning.release();
    (await otherWaiting).release();
    await waitFor(async () => (await state(prefix)).running === 0, 3_000, "all released");
    admin.disconnect();
    await other.close();
    await gateway.close();
  });

  it("local: runs under maxConcurrency / expectedInstances with a bounded queue while down, then reconciles", async () => {
    const prefix = "fault-local:";
    const gateway = instance(
      redis.server.url,
      {
        prefix,
        leaseMs: 600,
        commandTimeoutMs: 500,
        onStoreError: "local",
        expectedInstances: 2,
        localMaxQueue: 3,
      },
      OPTIONS,
    );
    const before = await gateway.scheduler.acquire(); // holds a Redis slot into the outage
    await redis.server.stop();
    await waitFor(
      async () => {
        await gateway.scheduler.run(() => {}).catch(() => {});
        return gateway.store.status === "local";
      },
      5_000,
      "local fallback",
    );

    let inFlight = 0;
    let peak = 0;
    const gates: Array<() => void> = [];
    const task = (): Promise<void> => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      return new Promise<void>((resolve) => gates.push(resolve)).finally(() => inFlight--);
    };
    const outcomes = Array.from({ length: 6 }, () =>
      gateway.scheduler.run(task, { priority: "batch" }).then(
        () => "done",
        (error: unknown) => (error as SchedulerError).code,
      ),
    );
    await sleep(50);
    // local limit 4 / 2 = 2, and the task still running from before the outage takes one of them
    expect(peak).toBe(1);
    expect(gateway.store.snapshot(10).queued).toBe(3);
    expect(await outcomes[5]).toBe("QUEUE_FULL");
    expect(await outcomes[4]).toBe("QUEUE_FULL");

    await redis.server.restart();
    await waitFor(() => gateway.store.status === "connected", 5_000, "reconnected");
    // adopted: the task from before the outage and the one the fallback started; then two of the three
    // that waited locally were sent to Redis and took the free slots
    await waitFor(async () => (await state(prefix)).running === 4, 3_000, "running tasks adopted");
    expect(inFlight).toBe(3);
    before.release();
    while (gates.length > 0 || inFlight > 0) {
      gates.shift()?.();
      await sleep(5);
    }
    expect((await Promise.all(outcomes)).slice(0, 4)).toEqual(["done", "done", "done", "done"]);
    await waitFor(async () => (await state(prefix)).running === 0, 3_000, "all released");
    expect(await state(prefix)).toEqual({ running: 0, queued: 0 });
    expect(peak).toBeLessThanOrEqual(4);
    await gateway.close();
  });

  it("fail-closed: rejects while Redis is not up yet at start, and serves once it is", async () => {
    await redis.server.stop();
    const gateway = instance(
      redis.server.url,
      { prefix: "fault-start-closed:", commandTimeoutMs: 300 },
      OPTIONS,
    );
    try {
      const failure = await gateway.scheduler.run(() => {}).catch((error: unknown) => error);
      expect((failure as SchedulerError).code).toBe("STORE_UNAVAILABLE");
    } finally {
      await redis.server.restart();
    }
    await waitFor(() => gateway.store.status === "connected", 5_000, "connected");
    await expect(gateway.scheduler.run(() => "ok")).resolves.toBe("ok");
    await gateway.close();
  });

  it("local: serves under the local limit while Redis is not up yet at start, then moves to Redis", async () => {
    await redis.server.stop();
    const prefix = "fault-start-local:";
    const changes: string[] = [];
    const gateway = instance(
      redis.server.url,
      {
        prefix,
        commandTimeoutMs: 300,
        onStoreError: "local",
        expectedInstances: 4,
        onStatusChange: (status, previous) => changes.push(`${previous}->${status}`),
      },
      OPTIONS,
    );
    let held: Permit | undefined;
    try {
      held = await gateway.scheduler.acquire();
      expect(gateway.store.status).toBe("local");
      const second = gateway.scheduler.acquire(); // local limit: 4 / 4 = 1
      await sleep(50);
      expect(gateway.store.snapshot(10)).toMatchObject({ running: 1, queued: 1 });
      held.release();
      held = await second;
    } finally {
      await redis.server.restart();
    }
    await waitFor(() => gateway.store.status === "connected", 5_000, "connected");
    await waitFor(async () => (await state(prefix)).running === 1, 3_000, "the local task adopted");
    held.release();
    await waitFor(async () => (await state(prefix)).running === 0, 3_000, "released");
    await gateway.close();
    expect(changes).toEqual(["connecting->local", "local->connected", "connected->closed"]);
  });

  it.each([
    ["its own connection", false],
    ["a client passed in", true],
  ])(
    "a hung Redis (SIGSTOP) counts as down after commandTimeoutMs with %s; work resumes after",
    async (_, passClient) => {
      const prefix = `fault-hung-${passClient}:`;
      const client = passClient ? new Redis(redis.server.url) : undefined;
      const gateway = instance(
        redis.server.url,
        { prefix, commandTimeoutMs: 300, ...(client ? { client, url: undefined } : {}) },
        OPTIONS,
      );
      await gateway.scheduler.run(() => {});
      redis.server.pause();
      try {
        const started = performance.now();
        const failure = await gateway.scheduler.run(() => {}).catch((error: unknown) => error);
        expect((failure as SchedulerError).code).toBe("STORE_UNAVAILABLE");
        expect(performance.now() - started).toBeLessThan(1_000);
      } finally {
        redis.server.resume();
      }
      await waitFor(() => gateway.store.status === "connected", 5_000, "back");
      await expect(gateway.scheduler.run(() => "ok")).resolves.toBe("ok");
      await gateway.close();
      await client?.quit();
    },
  );
});
