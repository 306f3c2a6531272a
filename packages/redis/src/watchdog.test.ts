import { createScheduler, type SchedulerError, VirtualClock } from "@llm-scheduler/core";
import type { Ticket } from "@llm-scheduler/core/kit";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ticket } from "../test/fixtures.js";
import { resolveRedisOptions } from "./options.js";
import type { Remote } from "./remote.js";
import { StoreState } from "./state.js";
import { LeaseWatchdog } from "./watchdog.js";

const LEASE_MS = 1_000;
const GUARD_MS = 200;

/** A store state with `running` granted tickets (costs given) and a watchdog on it; time is the test's. */
function setUp(costs: readonly number[], local = false) {
  let now = 0;
  vi.spyOn(performance, "now").mockImplementation(() => now);
  const options = local ? { onStoreError: "local" as const, expectedInstances: 2 } : {};
  const state = new StoreState(resolveRedisOptions({ leaseMs: LEASE_MS, ...options }), {} as Remote);
  const revoked: Array<[number, unknown]> = [];
  state.host = {
    clock: new VirtualClock(),
    grant: () => {},
    fail: () => {},
    revoke: (t: Ticket, error: unknown) => revoked.push([t.seq, error]),
  };
  state.options = { ...createScheduler({ maxConcurrency: 4 }).options, priorities: [] };
  state.up = true;
  for (const [i, cost] of costs.entries()) state.ledger.start(state.ledger.add({ ...ticket(i + 1), cost }));
  const downs: unknown[] = [];
  const watchdog = new LeaseWatchdog(state, { markDown: (error) => downs.push(error) }, GUARD_MS);
  const advance = (ms: number): void => {
    now += ms;
    vi.advanceTimersByTime(ms);
  };
  return { state, watchdog, revoked, downs, advance };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("LeaseWatchdog", () => {
  it("does nothing while renewals keep coming", () => {
    const { watchdog, revoked, downs, advance } = setUp([1, 1]);
    for (let t = 0; t < 5; t++) {
      watchdog.renewed(t * 500);
      advance(500);
    }
    expect(revoked).toEqual([]);
    expect(downs).toEqual([]);
    watchdog.stop();
  });

  it("failing closed, stops every task guardMs before a lease it could not renew lapses", () => {
    const { state, watchdog, revoked, downs, advance } = setUp([1, 2]);
    watchdog.renewed(0);
    advance(LEASE_MS - GUARD_MS - 1);
    expect(revoked).toEqual([]);
    advance(1);
    expect(revoked.map(([seq]) => seq)).toEqual([1, 2]);
    expect((revoked[0]![1] as SchedulerError).code).toBe("STORE_UNAVAILABLE");
    expect(downs).toHaveLength(1);
    expect(state.ledger.size).toBe(0);
    expect(state.leaseExpired).toBe(true);
  });

  it('with "local", keeps the oldest tasks that fit the local share and stops the rest', () => {
    // maxConcurrency 4 over expectedInstances 2: a local share of 2
    const { state, watchdog, revoked, advance } = setUp([1, 1, 1, 1], true);
    state.fallback = { forget: () => {} } as never; // markDown would set one up: the share applies
    watchdog.renewed(0);
    advance(LEASE_MS);
    expect(revoked.map(([seq]) => seq)).toEqual([3, 4]);
    expect(state.ledger.list("granted").map((entry) => entry.ticket.seq)).toEqual([1, 2]);
  });

  it("counts a renewal whose reply came too late as none: it fires at once", () => {
    const { watchdog, revoked, advance } = setUp([1]);
    advance(LEASE_MS);
    watchdog.renewed(0); // sent 1 s ago: the leases it renewed may lapse any moment
    expect(revoked.map(([seq]) => seq)).toEqual([1]);
  });

  it("after firing, a renewal in time clears the refusal of grants", () => {
    const { state, watchdog, advance } = setUp([]);
    watchdog.renewed(0);
    advance(LEASE_MS);
    expect(state.leaseExpired).toBe(true);
    watchdog.renewed(LEASE_MS);
    expect(state.leaseExpired).toBe(false);
    watchdog.stop();
  });
});
