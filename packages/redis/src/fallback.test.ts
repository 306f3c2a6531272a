import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import type { Ticket } from "@llm-scheduler/core/kit";
import { describe, expect, it } from "vitest";
import { ticket } from "../test/fixtures.js";
import { LocalFallback, localOptions } from "./fallback.js";
import { Ledger } from "./ledger.js";

describe("localOptions", () => {
  const options = createScheduler({
    maxConcurrency: 32,
    maxQueue: 50_000,
    priorities: {
      interactive: { reserved: 4, maxQueue: 500 },
      batch: { maxConcurrency: 24 },
    },
  }).options;

  it("divides every limit by the expected number of instances", () => {
    const local = localOptions(options, 4, 1_000);
    expect(local.maxConcurrency).toBe(8);
    expect(local.priorities.map((p) => [p.name, p.maxConcurrency, p.reserved])).toEqual([
      ["interactive", 8, 1],
      ["batch", 6, 0],
    ]);
    expect(local.priorities.find((p) => p.name === "batch")!.maxConcurrency).toBe(6);
  });

  it("divides the token budget and every tenant's cap and bucket the same way", () => {
    const quotas = createScheduler({
      maxConcurrency: 32,
      maxTokensInFlight: 400_000,
      tenantDefaults: { maxConcurrency: 6, maxQueue: 2_000, tokensPerMinute: 200_000 },
      tenants: { small: { maxConcurrency: 2 } },
    }).options;
    const local = localOptions(quotas, 4, 1_000);
    expect(local.maxTokensInFlight).toBe(100_000);
    expect(local.tenantDefaults).toMatchObject({
      maxConcurrency: 1,
      maxQueue: 2_000,
      tokensPerMinute: 50_000,
      burstTokens: 5_000,
    });
    expect(local.tenantQuotas.get("small")).toMatchObject({ maxConcurrency: 1, tokensPerMinute: 50_000 });
    expect(localOptions(options, 4, 1_000).maxTokensInFlight).toBe(Number.POSITIVE_INFINITY);
  });

  it("bounds every local queue", () => {
    const local = localOptions(options, 4, 1_000);
    expect(local.maxQueue).toBe(1_000);
    expect(local.priorities.map((p) => p.maxQueue)).toEqual([500, 1_000]);
  });

  it("keeps at least one slot and reserves within the local limit", () => {
    const local = localOptions(options, 64, 10);
    expect(local.maxConcurrency).toBe(1);
    expect(local.priorities.every((p) => p.maxConcurrency === 1 && p.reserved === 0)).toBe(true);
  });
});

describe("LocalFallback", () => {
  const options = createScheduler({ maxConcurrency: 2, priorities: { a: {} } }).options;

  function setUp() {
    const ledger = new Ledger();
    const granted: number[] = [];
    const host = {
      clock: new VirtualClock(),
      grant: (t: Ticket) => granted.push(t.seq),
      fail: () => {},
      revoke: () => {},
    };
    return { ledger, granted, fallback: new LocalFallback(ledger, host, options) };
  }

  it("counts tasks still running first, then queues the waiting ones in order and grants what fits", () => {
    const { ledger, granted, fallback } = setUp();
    const running = ledger.add(ticket(1));
    ledger.start(running);
    for (const seq of [2, 3, 4]) ledger.add(ticket(seq));
    fallback.takeOver();
    expect(granted).toEqual([2]);
    expect(running.local).toBe("holding");
    expect(ledger.list("waiting").map((e) => [e.ticket.seq, e.local])).toEqual([
      [3, "queued"],
      [4, "queued"],
    ]);
    expect(fallback.snapshot(10)).toMatchObject({ running: 2, queued: 2 });
  });

  it("frees a slot when an entry is forgotten, granting the next one exactly once", () => {
    const { ledger, granted, fallback } = setUp();
    const entries = [1, 2, 3].map((seq) => ledger.add(ticket(seq)));
    fallback.takeOver();
    expect(granted).toEqual([1, 2]);
    ledger.delete(entries[0]!);
    fallback.forget(entries[0]!);
    expect(granted).toEqual([1, 2, 3]);
    expect(entries[2]!.state).toBe("granted");
    fallback.handBack();
    expect(entries.map((e) => e.local)).toEqual(["none", "none", "none"]);
  });
});
