import { describe, expect, it } from "vitest";
import { localReplicaLedger } from "./ledger.js";
import { resolveShared } from "./shared-options.js";

describe("resolveShared", () => {
  const ledger = localReplicaLedger();

  it("is undefined without a ledger, and fills the defaults", () => {
    expect(resolveShared(undefined)).toBeUndefined();
    expect(resolveShared({ ledger })).toEqual({ ledger, retryMs: 1_000, syncMs: 500, timeoutMs: 1_000 });
  });

  it("refuses unknown keys, a non-ledger and numbers out of range", () => {
    expect(() => resolveShared({ ledger, typo: 1 })).toThrow(/typo/);
    expect(() => resolveShared({ ledger: {} })).toThrow(/shared\.ledger/);
    expect(() => resolveShared({ ledger, retryMs: 0 })).toThrow(/shared\.retryMs/);
    expect(() => resolveShared({ ledger, syncMs: 5 })).toThrow(/shared\.syncMs/);
    expect(() => resolveShared({ ledger, timeoutMs: 0 })).toThrow(/shared\.timeoutMs/);
    expect(() => resolveShared("redis")).toThrow(/shared/);
  });
});

describe("localReplicaLedger", () => {
  it("leases up to the limit and takes a lease back once", async () => {
    const local = localReplicaLedger();
    const first = await local.take("r0", 2);
    expect(await local.take("r0", 2)).not.toBeNull();
    expect(await local.take("r0", 2)).toBeNull();
    expect(await local.counts(["r0", "r1"])).toEqual({ r0: 2, r1: 0 });
    await local.release(first!);
    await local.release(first!);
    expect(await local.counts(["r0"])).toEqual({ r0: 1 });
  });

  it("reports ejections for the time they have left, the later end winning", async () => {
    let now = 1_000;
    const local = localReplicaLedger(() => now);
    await local.eject("r1", 500);
    await local.eject("r1", 100);
    now += 200;
    expect(await local.ejections()).toEqual({ r1: 300 });
    now += 300;
    expect(await local.ejections()).toEqual({});
  });
});
