import { SchedulerError, VirtualClock } from "@llm-scheduler/core";
import type { Ticket } from "@llm-scheduler/core/kit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ticket } from "../test/fixtures.js";
import { Grants } from "./grants.js";
import { Heartbeat, type HeartbeatLink } from "./heartbeat.js";
import { resolveRedisOptions } from "./options.js";
import type { Remote } from "./remote.js";
import type { Reply } from "./replies.js";
import { StoreState } from "./state.js";

const reply = (extra: string[] = []): Reply => ({
  status: 0,
  counts: { running: 0, queued: 0, priorities: {}, starts: {} },
  granted: [],
  extra,
});

/** A heartbeat over a scripted Redis (each tick answered by the test), with one running task, seq 1. */
function setUp() {
  let now = 0;
  vi.spyOn(performance, "now").mockImplementation(() => now);
  const ticks: Array<(reply: Reply) => void> = [];
  const adopted: string[][] = [];
  const remote = {
    id: (t: Ticket) => `me:${t.seq}`,
    seqOf: (id: string) => Number(id.slice(3)),
    tick: () => new Promise<Reply>((resolve) => ticks.push(resolve)),
    adopt: (running: readonly Ticket[]) => {
      adopted.push(running.map((t) => `me:${t.seq}`));
      return Promise.resolve(reply());
    },
  };
  const state = new StoreState(
    resolveRedisOptions({ leaseMs: 300, pollMs: 100 }),
    remote as unknown as Remote,
  );
  const revoked: Array<[number, unknown]> = [];
  state.host = {
    clock: new VirtualClock(),
    grant: () => {},
    fail: () => {},
    revoke: (t, error) => revoked.push([t.seq, error]),
  };
  state.up = true;
  const link: HeartbeatLink = {
    connect: () => Promise.resolve(true),
    unreachable: () => {},
    markDown: () => {},
    resync: () => {},
  };
  const spared: string[][] = [];
  const heartbeat = new Heartbeat(
    state,
    new Grants(
      state,
      () => {},
      (ids) => spared.push([...ids]),
    ),
    link,
  );
  const running = state.ledger.add(ticket(1));
  state.ledger.start(running);
  const at = (ms: number): void => {
    now = ms;
  };
  return { heartbeat, state, ticks, adopted, revoked, running, spared, at };
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("Heartbeat", () => {
  it("beats every min(pollMs, leaseMs / 3)", () => {
    expect(setUp().heartbeat.intervalMs).toBe(100);
  });

  it("revokes a task whose lease Redis no longer holds when no renewal was sent for leaseMs", async () => {
    const { heartbeat, state, ticks, adopted, revoked, at } = setUp();
    at(301); // stalled since the store started: the lease may have lapsed
    const beat = heartbeat.beat();
    ticks[0]!(reply(["me:1"]));
    await beat;
    expect(revoked).toHaveLength(1);
    const [seq, error] = revoked[0]!;
    expect(seq).toBe(1);
    expect(error).toBeInstanceOf(SchedulerError);
    expect((error as SchedulerError).code).toBe("STORE_UNAVAILABLE");
    expect(state.ledger.size).toBe(0);
    expect(adopted).toEqual([]);
  });

  it("adopts a lease Redis lost although it was renewed in time (a restart)", async () => {
    const { heartbeat, ticks, adopted, revoked, running, at } = setUp();
    const first = heartbeat.beat(); // sent at 0
    ticks[0]!(reply());
    await first;
    at(290);
    const second = heartbeat.beat();
    ticks[1]!(reply(["me:1"]));
    await second;
    expect(revoked).toEqual([]);
    expect(adopted).toEqual([["me:1"]]);
    expect(running.state).toBe("granted");
  });

  it("stops a victim named in its reply (a lost pub/sub message costs one renewal), or spares it when the scheduler will not", async () => {
    const { heartbeat, state, ticks, spared } = setUp();
    const asked: Array<[number, string]> = [];
    let stops = true;
    state.host = {
      ...state.host!,
      preempt: (t, by) => {
        asked.push([t.seq, by]);
        return stops;
      },
    };
    const first = heartbeat.beat();
    ticks[0]!({ ...reply(), victim: ["me:1", "interactive"] });
    await first;
    expect(asked).toEqual([[1, "interactive"]]);
    expect(spared).toEqual([]);
    stops = false; // say its response has started since
    const second = heartbeat.beat();
    ticks[1]!({ ...reply(), victim: ["me:1", "interactive"] });
    await second;
    expect(spared).toEqual([["me:1"]]);
    const third = heartbeat.beat();
    ticks[2]!({ ...reply(), victim: [] }); // no victim here: nothing asked
    await third;
    expect(asked).toHaveLength(2);
  });

  it("sends the next heartbeat one interval after the last was sent, or at once after a stall", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { heartbeat, ticks, at } = setUp();
    heartbeat.schedule(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(ticks).toHaveLength(1);
    at(5);
    ticks[0]!(reply()); // answered 5 ms after it was sent: the next one goes 95 ms later
    await vi.advanceTimersByTimeAsync(94);
    expect(ticks).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(ticks).toHaveLength(2);
    at(2_000); // the event loop stalled while the answer waited
    ticks[1]!(reply());
    await vi.advanceTimersByTimeAsync(0);
    expect(ticks).toHaveLength(3);
    heartbeat.stop();
  });
});
