import { createScheduler, SchedulerError, VirtualClock } from "@llm-scheduler/core";
import type { Ticket } from "@llm-scheduler/core/kit";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ticket } from "../test/fixtures.js";
import { Grants } from "./grants.js";
import { Link } from "./link.js";
import { type RedisStoreOptions, resolveRedisOptions } from "./options.js";
import type { Remote } from "./remote.js";
import { type Reply, Status } from "./replies.js";
import { StoreState } from "./state.js";

const reply: Reply = {
  status: 0,
  counts: { running: 0, queued: 0, priorities: {}, starts: {} },
  granted: [],
  extra: [],
};

/** A link over a scripted Redis that answers every enqueue with `enqueueStatus`; two tickets wait. */
function setUp(options: RedisStoreOptions = {}, enqueueStatus: number = Status.QUEUED) {
  const removed: string[][] = [];
  const remote = {
    ready: true,
    id: (t: Ticket) => `me:${t.seq}`,
    seqOf: (id: string) => Number(id.slice(3)),
    load: () => Promise.resolve(),
    configure: () => Promise.resolve(reply),
    evictionPolicy: () => Promise.resolve("noeviction"),
    enqueue: (_: Ticket, done: (status: string) => unknown) =>
      Promise.resolve(String(enqueueStatus)).then(done),
    remove: (ids: readonly string[], done: (status: string) => unknown) => {
      removed.push([...ids]);
      return Promise.resolve("0").then(done);
    },
  };
  const state = new StoreState(
    resolveRedisOptions({ leaseMs: 3_000, pollMs: 200, ...options }),
    remote as unknown as Remote,
  );
  const failed: Array<[number, SchedulerError]> = [];
  state.host = {
    clock: new VirtualClock(),
    grant: () => {},
    fail: (t, error) => failed.push([t.seq, error as SchedulerError]),
    revoke: () => {},
  };
  state.options = createScheduler({ maxConcurrency: 2, priorities: { a: {} } }).options;
  for (const seq of [1, 2]) state.ledger.add(ticket(seq));
  const link = new Link(
    state,
    new Grants(
      state,
      () => {},
      () => {},
    ),
  );
  return { link, state, failed, removed };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] }); // no heartbeat runs by itself
});

afterEach(() => {
  vi.useRealTimers();
});

describe("Link", () => {
  it("failing closed, keeps the waiting tickets while Redis is down, and drops them once the outage is confirmed", () => {
    const { link, state, failed } = setUp();
    state.up = true;
    link.markDown(new Error("no reply in 2000 ms"));
    expect(failed).toEqual([]); // one failed call is not an outage
    expect(state.ledger.list("waiting")).toHaveLength(2);

    link.unreachable(); // a reconnection attempt failed too
    expect(failed.map(([seq]) => seq)).toEqual([1, 2]);
    const error = failed[0]![1];
    expect(error).toBeInstanceOf(SchedulerError);
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.retryAfterMs).toBe(link.heartbeat.intervalMs);
    expect(error.message).toContain("no reply in 2000 ms");
    expect(state.ledger.size).toBe(0);
    expect(state.dropped).toEqual(["me:1", "me:2"]);
  });

  it('with "local", drops nothing: the local fallback takes the waiting tickets over', () => {
    const { link, state, failed } = setUp({ onStoreError: "local", expectedInstances: 2 });
    state.up = true;
    link.markDown(new Error("connection closed"));
    link.unreachable();
    expect(failed).toEqual([]);
    expect(state.fallback).not.toBeNull();
    expect(state.ledger.size).toBe(2);
  });

  it("takes the tickets given up during an outage out of Redis once it is back", async () => {
    const { link, state, removed } = setUp();
    state.up = true;
    link.markDown(new Error("down"));
    link.unreachable();
    expect(await link.connect()).toBe(true);
    expect(removed).toEqual([["me:1", "me:2"]]);
    expect(state.dropped).toEqual([]);
  });

  it("fails a ticket sent again with QUEUE_FULL when its queue filled up while Redis was away", async () => {
    const { link, failed, state } = setUp({}, Status.FULL);
    expect(await link.connect()).toBe(true); // reconciles: both waiting tickets are sent again
    await vi.waitFor(() => expect(failed).toHaveLength(2));
    expect(failed.map(([, error]) => error.code)).toEqual(["QUEUE_FULL", "QUEUE_FULL"]);
    expect(state.ledger.size).toBe(0);
  });
});
