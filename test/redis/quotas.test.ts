import { ErrorCode, type SchedulerOptions } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import { type Instance, instance, sleep, useRedisServer, waitFor, waitForEmpty } from "./helpers.js";

const redis = useRedisServer({ admin: true });
let open: Instance[] = [];
let prefixes = 0;

afterEach(async () => {
  await Promise.all(open.map((gateway) => gateway.close()));
  open = [];
});

/** Two gateways (two schedulers, two stores) sharing one prefix on one Redis. */
function pair(options: SchedulerOptions): { prefix: string; list: [Instance, Instance] } {
  const prefix = `quotas${++prefixes}:`;
  const list = [0, 1].map(() => instance(redis.server.url, { prefix, leaseMs: 3_000 }, options));
  open.push(...list);
  return { prefix, list: list as [Instance, Instance] };
}

/** Counts what runs at once, in total and per key, and keeps the peaks. */
function gauge() {
  const now = new Map<string, number>();
  const peaks = new Map<string, number>();
  return {
    peaks,
    async hold(keys: readonly string[], amounts: readonly number[], ms: number): Promise<void> {
      for (const [i, key] of keys.entries()) {
        const value = (now.get(key) ?? 0) + amounts[i]!;
        now.set(key, value);
        peaks.set(key, Math.max(peaks.get(key) ?? 0, value));
      }
      await sleep(ms);
      for (const [i, key] of keys.entries()) now.set(key, now.get(key)! - amounts[i]!);
    },
  };
}

describe("tenant quotas and the token budget across instances", () => {
  it("never run more of a tenant than its maxConcurrency, whichever instance queued its work", async () => {
    const { prefix, list } = pair({ maxConcurrency: 8, tenantDefaults: { maxConcurrency: 2 } });
    const { peaks, hold } = gauge();
    const runs = list.flatMap((gateway) =>
      ["a", "b", "c"].flatMap((tenant) =>
        Array.from({ length: 8 }, () =>
          gateway.scheduler.run(() => hold([tenant, "all"], [1, 1], 10), { tenant }),
        ),
      ),
    );
    await Promise.all(runs);
    expect([peaks.get("a"), peaks.get("b"), peaks.get("c")]).toEqual([2, 2, 2]);
    expect(peaks.get("all")).toBe(6); // the other tenants used the slots a capped one could not
    // releases go with the store's next call, which may wait for the reply of the one out
    await waitForEmpty(redis.admin, prefix, 2_000);
    for (const gateway of list) expect(gateway.errors).toEqual([]);
  });

  it("never exceed the token budget together, and run an oversize request alone", async () => {
    const { list } = pair({ maxConcurrency: 8, maxTokensInFlight: 1_000 });
    const { peaks, hold } = gauge();
    let running = 0;
    let bigRunning = false;
    let overlaps = 0;
    const runs = list.flatMap((gateway, g) =>
      Array.from({ length: 12 }, (_, i) => {
        const tokens = g === 1 && i === 6 ? 5_000 : 300;
        return gateway.scheduler.run(
          async () => {
            if (bigRunning || (tokens === 5_000 && running > 0)) overlaps++;
            running++;
            bigRunning ||= tokens === 5_000;
            await hold(["tokens"], [tokens === 5_000 ? 0 : tokens], tokens === 5_000 ? 20 : 10);
            if (tokens === 5_000) bigRunning = false;
            running--;
          },
          { tenant: `t${i % 3}`, tokens },
        );
      }),
    );
    await Promise.all(runs);
    expect(peaks.get("tokens")).toBe(900); // three 300-token requests at most
    expect(overlaps).toBe(0);
    for (const gateway of list) expect(gateway.errors).toEqual([]);
  });

  it("share one token bucket per tenant, corrected by usage reported on either instance", async () => {
    // 100 tokens a second: slow enough that a busy machine cannot refill the bucket mid-test
    const tenants = { x: { tokensPerMinute: 6_000, burstTokens: 1_000 } };
    const { prefix, list } = pair({ maxConcurrency: 4, tenants });
    const [a, b] = list;
    await a.scheduler.run(({ reportUsage }) => reportUsage({ inputTokens: 900, outputTokens: 0 }), {
      tenant: "x",
      tokens: 100,
    });
    // a's report goes with its release, on a's next call to Redis: once the release has landed, so has the report
    await waitForEmpty(redis.admin, prefix, 2_000);
    // the bucket holds about 100 now (refilled a little since): b is refused, with an honest hint
    const refused = await b.scheduler.run(() => {}, { tenant: "x", tokens: 600 }).catch((error) => error);
    expect(refused.code).toBe(ErrorCode.RATE_LIMITED);
    expect(refused.retryAfterMs).toBeGreaterThan(3_000); // 500 tokens short at 100 a second, less the refill
    expect(refused.retryAfterMs).toBeLessThanOrEqual(5_000 * 1.2);
    await b.scheduler.run(() => {}, { tenant: "y", tokens: 600 }); // other tenants have no bucket
    // metrics: b reads x's figures, kept in Redis by a's calls and its own refusal
    const held = await b.scheduler.acquire({ tenant: "x", tokens: 0 });
    b.store.snapshot(10); // starts the read
    await waitFor(() => b.store.snapshot(10).tenants[0]?.throttled === 1, 2_000, "figures read");
    const [figures] = b.store.snapshot(10).tenants;
    expect(figures).toMatchObject({ tenant: "x", running: 1, tokensServed: 900, tokensInFlight: 0 });
    expect(figures!.bucket).toBeGreaterThanOrEqual(100);
    expect(figures!.bucket).toBeLessThanOrEqual(1_000);
    held.release();
  });
});
