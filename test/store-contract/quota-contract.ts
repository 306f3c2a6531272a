import type { SchedulerOptions } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import type { StoreFactory } from "./contract.js";
import { Driver } from "./driver.js";

const one = (extra: SchedulerOptions = {}): SchedulerOptions => ({
  maxConcurrency: 4,
  priorities: { a: {} },
  ...extra,
});

/**
 * Tenant quotas, the token budget and token fairness, run against every store through the same
 * factory as the store contract: each scenario states what the in-memory store does, and the Redis
 * store must do the same (globally, in Lua).
 */
export function runQuotaContract(factory: StoreFactory): void {
  describe(`quota contract: ${factory.name}`, () => {
    let drivers: Driver[] = [];

    async function open(options: SchedulerOptions): Promise<Driver> {
      const driver = new Driver(factory.create(), options);
      drivers.push(driver);
      await driver.attach();
      return driver;
    }

    afterEach(async () => {
      for (const driver of drivers) {
        await driver.close();
        await factory.dispose?.(driver.store);
      }
      drivers = [];
    });

    it("skips a tenant at its maxConcurrency without holding up the others", async () => {
      const d = await open(one({ tenants: { x: { maxConcurrency: 1 } } }));
      await d.enqueueAll([
        { priority: "a", tenant: "x" },
        { priority: "a", tenant: "x" },
        { priority: "a", tenant: "x" },
        { priority: "a", tenant: "y" },
        { priority: "a", tenant: "y" },
      ]);
      expect(d.granted).toEqual([1, 4, 5]); // x's 2 and 3 wait; y takes the free slots
      await d.release(1);
      expect(d.granted).toEqual([1, 4, 5, 2]);
      expect(d.store.snapshot(10)).toMatchObject({ running: 3, queued: 1 });
    });

    it("applies a live change of a tenant's cap at once, and one of its bucket", async () => {
      const d = await open(one({ tenants: { x: { maxConcurrency: 1 } } }));
      await d.enqueueAll([
        { priority: "a", tenant: "x" },
        { priority: "a", tenant: "x" },
        { priority: "a", tenant: "x" },
      ]);
      expect(d.granted).toEqual([1]);
      await d.configure(one({ tenants: { x: { maxConcurrency: 3 } } }));
      expect(d.granted).toEqual([1, 2, 3]); // parked work starts without waiting for a release
      await d.configure(
        one({ tenants: { x: { maxConcurrency: 4, tokensPerMinute: 60_000, burstTokens: 100 } } }),
      );
      expect((await d.enqueue({ priority: "a", tenant: "x", tokens: 150 }))[1]).toBe("granted"); // a new bucket starts full
      expect((await d.enqueue({ priority: "a", tenant: "x", tokens: 10 }))[1]).toEqual({
        rateLimited: true,
        retryAfterMs: 60,
      });
    });

    it("keeps every waiting ticket when fairness changes live", async () => {
      const d = await open({ maxConcurrency: 1, priorities: { a: {} } });
      await d.enqueueAll([
        { priority: "a", tenant: "x", tokens: 100 },
        { priority: "a", tenant: "x", tokens: 100 },
        { priority: "a", tenant: "y", tokens: 100 },
        { priority: "a", tenant: "z", tokens: 100 },
      ]);
      await d.configure({ maxConcurrency: 1, priorities: { a: {} }, fairness: "tokens" });
      for (let i = 0; i < 3; i++) await d.release(d.granted.at(-1)!);
      await d.configure({ maxConcurrency: 1, priorities: { a: {} } });
      expect(new Set(d.granted)).toEqual(new Set([1, 2, 3, 4]));
      expect(d.store.snapshot(10)).toMatchObject({ running: 1, queued: 0 });
    });

    it("applies tenantDefaults to unknown tenants, and refuses beyond a tenant's maxQueue", async () => {
      const d = await open({ maxConcurrency: 1, priorities: { a: {} }, tenantDefaults: { maxQueue: 2 } });
      const results = [];
      for (const tenant of ["k1", "k1", "k1", "k1", "k2"]) {
        results.push((await d.enqueue({ priority: "a", tenant }))[1]);
      }
      expect(results).toEqual(["granted", "queued", "queued", "tenant-full", "queued"]);
      expect(d.store.depth("a")).toBe(3);
    });

    it("rate-limits by the token bucket, with retryAfterMs from its refill time", async () => {
      // 60,000 tokens a minute: one a millisecond; a bucket of 1,000
      const d = await open(one({ tenants: { x: { tokensPerMinute: 60_000, burstTokens: 1_000 } } }));
      expect((await d.enqueue({ priority: "a", tenant: "x", tokens: 600 }))[1]).toBe("granted");
      expect((await d.enqueue({ priority: "a", tenant: "x", tokens: 300 }))[1]).toBe("granted");
      expect((await d.enqueue({ priority: "a", tenant: "x", tokens: 500 }))[1]).toEqual({
        rateLimited: true,
        retryAfterMs: 400,
      });
      d.clock.advance(400);
      expect((await d.enqueue({ priority: "a", tenant: "x", tokens: 500 }))[1]).toBe("granted");
      // other tenants have no bucket
      expect((await d.enqueue({ priority: "a", tenant: "y", tokens: 50_000 }))[1]).toBe("granted");
    });

    it("corrects the bucket by reported usage", async () => {
      const d = await open(one({ tenants: { x: { tokensPerMinute: 60_000, burstTokens: 1_000 } } }));
      await d.enqueue({ priority: "a", tenant: "x", tokens: 900 });
      await d.reportUsage(1, { inputTokens: 100, outputTokens: 50 }); // 750 fewer than estimated
      expect((await d.enqueue({ priority: "a", tenant: "x", tokens: 800 }))[1]).toBe("granted");
      await d.reportUsage(2, { inputTokens: 900, outputTokens: 300 }); // 400 more: the bucket is at -350
      expect((await d.enqueue({ priority: "a", tenant: "x", tokens: 50 }))[1]).toEqual({
        rateLimited: true,
        retryAfterMs: 400,
      });
    });

    it("starts only what fits the token budget, and an oversize ticket alone", async () => {
      const d = await open(one({ maxTokensInFlight: 1_000 }));
      await d.enqueueAll([
        { priority: "a", tenant: "x", tokens: 600 },
        { priority: "a", tenant: "x", tokens: 600 },
        { priority: "a", tenant: "x", tokens: 5_000 },
        { priority: "a", tenant: "x", tokens: 100 },
      ]);
      expect(d.granted).toEqual([1]);
      await d.release(1);
      expect(d.granted).toEqual([1, 2]); // the 5,000-token ticket waits until nothing runs
      await d.release(2);
      expect(d.granted).toEqual([1, 2, 3]);
      await d.release(3);
      expect(d.granted).toEqual([1, 2, 3, 4]);
    });

    it("with fairness tokens, starts the tenant with the fewest weighted tokens served", async () => {
      const d = await open({
        maxConcurrency: 1,
        priorities: { a: {} },
        fairness: "tokens",
        tenants: { heavy: { weight: 1 }, light: { weight: 1 } },
      });
      await d.enqueue({ priority: "a", tenant: "heavy", tokens: 8_000 });
      for (let i = 0; i < 3; i++) await d.enqueue({ priority: "a", tenant: "heavy", tokens: 8_000 });
      for (let i = 0; i < 5; i++) await d.enqueue({ priority: "a", tenant: "light", tokens: 2_000 });
      for (let i = 0; i < 6; i++) await d.release(d.granted.at(-1)!);
      // heavy's start counts 8,000; light, arriving while heavy waits, starts level with it (not at 0),
      // ties go by name: heavy (16,000), then light four times (8,000 -> 16,000), then heavy again
      expect(d.granted.map((seq) => d.get(seq).tenant)).toEqual([
        "heavy",
        "heavy",
        "light",
        "light",
        "light",
        "light",
        "heavy",
      ]);
    });

    it("lifts a tenant back from idle to the smallest counter, and counts reported usage", async () => {
      const d = await open({ maxConcurrency: 1, priorities: { a: {} }, fairness: "tokens" });
      await d.enqueue({ priority: "a", tenant: "a1", tokens: 1_000 });
      await d.enqueue({ priority: "a", tenant: "a2", tokens: 1_000 });
      await d.enqueue({ priority: "a", tenant: "a2", tokens: 1_000 });
      await d.reportUsage(1, { inputTokens: 3_000, outputTokens: 1_000 }); // a1: 5,000 weighted (x2 output)
      await d.release(1); // a2 starts: 1,000
      await d.release(2); // a2 again (a1 idle): 2,000
      // nobody waits: "late" is lifted to the counter of the last start (a2's 1,000), not 0; a2 and a1
      // come back at their own 2,000 and 5,000
      await d.enqueue({ priority: "a", tenant: "late", tokens: 500 });
      await d.enqueue({ priority: "a", tenant: "a1", tokens: 500 });
      await d.enqueue({ priority: "a", tenant: "a2", tokens: 500 });
      await d.enqueue({ priority: "a", tenant: "late", tokens: 500 });
      for (let i = 0; i < 4; i++) await d.release(d.granted.at(-1)!);
      // late 1,000 -> 1,500 -> 2,000; a2 2,000 (ties by name: a2 before late); a1 last
      expect(d.granted.slice(3).map((seq) => d.get(seq).tenant)).toEqual(["late", "late", "a2", "a1"]);
    });
  });
}
