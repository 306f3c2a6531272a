import type { Ticket } from "@llm-scheduler/core/kit";
import { describe, expect, it } from "vitest";
import { ticket as fixture } from "../test/fixtures.js";
import { Ledger } from "./ledger.js";

const ticket = (seq: number, tenant = "t"): Ticket => fixture(seq, { tenant });

describe("Ledger", () => {
  it("keeps arrival order and counts per tenant as tickets start and leave", () => {
    const ledger = new Ledger();
    const [a, b, c] = [ticket(1, "x"), ticket(2, "y"), ticket(3, "x")];
    for (const t of [a, b, c]) ledger.add(t);
    ledger.start(ledger.of(b)!);
    expect(ledger.list("waiting").map((e) => e.ticket.seq)).toEqual([1, 3]);
    expect(ledger.list("granted").map((e) => e.ticket.seq)).toEqual([2]);
    expect(ledger.tenants(10)).toEqual([
      { tenant: "x", priority: "a", running: 0, queued: 2 },
      { tenant: "y", priority: "a", running: 1, queued: 0 },
    ]);
    ledger.delete(ledger.of(b)!);
    ledger.delete(ledger.of(a)!);
    expect(ledger.tenants(10)).toEqual([{ tenant: "x", priority: "a", running: 0, queued: 1 }]);
    expect(ledger.size).toBe(1);
  });

  it("knows a ticket only by the very object it was given", () => {
    const ledger = new Ledger();
    ledger.add(ticket(1));
    expect(ledger.of(ticket(1))).toBeUndefined();
    expect(ledger.get(1)?.ticket.seq).toBe(1);
  });
});
