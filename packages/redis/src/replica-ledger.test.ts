import { describe, expect, it } from "vitest";
import type { RedisClient } from "./options.js";
import { redisReplicaLedger } from "./replica-ledger.js";

const client = {} as RedisClient; // never reached: the options are checked first

describe("redisReplicaLedger options", () => {
  it("refuses unknown keys, names with braces or spaces and lease times out of range", () => {
    expect(() => redisReplicaLedger(client, { typo: 1 } as never)).toThrow(/typo/);
    expect(() => redisReplicaLedger(client, { pool: "a{b}" })).toThrow(/pool/);
    expect(() => redisReplicaLedger(client, { prefix: "has space" })).toThrow(/prefix/);
    expect(() => redisReplicaLedger(client, { leaseMs: 99 })).toThrow(/leaseMs/);
    expect(() => redisReplicaLedger(client, null as never)).toThrow(/options/);
  });

  it("accepts the defaults and stops its heartbeat on close", () => {
    const ledger = redisReplicaLedger(client, { pool: "llama-70b", leaseMs: 100 });
    expect(typeof ledger.take).toBe("function");
    ledger.close();
  });
});
