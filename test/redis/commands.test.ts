import { describe, expect, it } from "vitest";
import { opCommandCosts } from "../../bench/lib/redis-op-commands.js";
import { useRedisServer } from "./helpers.js";

const redis = useRedisServer();

// The Redis commands each operation runs (INFO commandstats; deterministic), as measured when the key
// layout became version 3: a change that adds commands to a decision shows here first.
describe("commands per operation", () => {
  it("stay at their layout-3 counts, without and with tenant quotas", async () => {
    const [plain, quotas] = await opCommandCosts(redis.server.url, 3);
    expect(plain!.ops.map((o) => [o.op, o.commands])).toEqual([
      ["enqueue, granted at once", 8],
      ["enqueue, queued", 11],
      ["release, granting the waiter", 15],
      ["remove a waiting ticket", 14],
      ["release of an unknown id", 6],
      ["release, nothing waiting", 7],
    ]);
    // With token fairness a few counters are kept or dropped depending on earlier rounds, and a tenant's
    // idle record is dropped (ZREM + HDEL) by the first call after its bucket has filled again: with
    // 10^9 tokens a minute that takes well under a millisecond, so on a loaded machine it can land in
    // any of the calls, "remove" included (20 on a quiet machine, 22 seen under load).
    const most = [16, 18, 29, 22, 6, 10];
    for (const [i, o] of quotas!.ops.entries()) expect(o.commands, o.op).toBeLessThanOrEqual(most[i]!);
    expect(quotas!.fixed).toBe(6);
  });
});
