import { describe, expect, it } from "vitest";
import { opCommandCosts } from "../../bench/lib/redis-op-commands.js";
import { useRedisServer } from "./helpers.js";

const redis = useRedisServer();

// The Redis commands each operation runs (INFO commandstats; deterministic), as measured when the key
// layout became version 5: a change that adds commands to a decision shows here first. Version 5 costs
// one command more than versions 3 and 4 where a ticket's record is created (EXISTS, then HSET, where
// one SET NX did) or taken (HGETALL, then DEL, where one GETDEL did): the price of a record whose
// fields have names.
describe("commands per operation", () => {
  it("stay at their layout-5 counts, without and with tenant quotas", async () => {
    const [plain, quotas] = await opCommandCosts(redis.server.url, 3);
    expect(plain!.ops.map((o) => [o.op, o.commands])).toEqual([
      ["enqueue, granted at once", 9],
      ["enqueue, queued", 12],
      ["release, granting the waiter", 16],
      ["remove a waiting ticket", 14],
      ["release of an unknown id", 6],
      ["release, nothing waiting", 8],
    ]);
    // With token fairness a few counters are kept or dropped depending on earlier rounds, and a tenant's
    // idle record is dropped (ZREM + HDEL) by the first call after its bucket has filled again: with
    // 10^9 tokens a minute that takes well under a millisecond, so on a loaded machine it can land in
    // any of the calls, "remove" included (20 on a quiet machine, 22 seen under load).
    const most = [17, 19, 30, 22, 6, 11];
    for (const [i, o] of quotas!.ops.entries()) expect(o.commands, o.op).toBeLessThanOrEqual(most[i]!);
    expect(quotas!.fixed).toBe(6);
  });
});
