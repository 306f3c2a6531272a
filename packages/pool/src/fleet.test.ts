import { VirtualClock } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import { Fleet, type Lease } from "./fleet.js";
import { type LedgerSnapshot, localReplicaLedger, type ReplicaLedger } from "./ledger.js";
import { Placement } from "./placement.js";
import { Replica } from "./replica.js";
import { prefixAffinity } from "./routing/prefix.js";
import { resolveShared } from "./shared-options.js";

type Listener = (snapshot: LedgerSnapshot | undefined) => void;

/** A local ledger whose takes can fail, be held back, and whose watcher the test can call itself. */
function testLedger() {
  const local = localReplicaLedger();
  const listeners: Listener[] = [];
  const state = { down: false, hold: undefined as Promise<void> | undefined };
  const ledger: ReplicaLedger = {
    ...local,
    async take(replicaId, limit) {
      if (state.hold !== undefined) await state.hold;
      if (state.down) throw new Error("unreachable");
      return local.take(replicaId, limit);
    },
    watch(ids, listener) {
      listeners.push(listener);
      return local.watch(ids, listener);
    },
  };
  return { ledger, local, listeners, state };
}

let fleets: Fleet[] = [];
afterEach(() => {
  for (const fleet of fleets) fleet.close();
  fleets = [];
});

function setup(ledger: ReplicaLedger) {
  const clock = new VirtualClock();
  const replicas = ["r0", "r1"].map(
    (id) => new Replica(id, { url: `http://${id}.test`, maxConcurrency: 2 }, clock, undefined, () => {}),
  );
  const shared = resolveShared({ ledger, retryMs: 1_000, timeoutMs: 50 })!;
  const counter = { wakes: 0, waiting: 0 };
  const fleet = new Fleet(
    shared,
    replicas,
    clock,
    () => {
      counter.wakes += 1;
    },
    () => counter.waiting,
  );
  fleets.push(fleet);
  fleet.start();
  const view = (index: number): number => replicas[index]!.view(clock.now(), 0).inFlight;
  return { clock, replicas, fleet, counter, view };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("Fleet", () => {
  it("shows routers the other instances' leases, while metrics keep this instance's own count", async () => {
    const { ledger, local, listeners } = testLedger();
    const { replicas, view } = setup(ledger);
    await local.take("r0", 2); // another instance
    expect(view(0)).toBe(1);
    expect(replicas[0]!.inFlight).toBe(0);
    expect(view(1)).toBe(0);

    listeners[0]!({ seq: 0, counts: { r0: 0 } }); // older than what it has: ignored
    expect(view(0)).toBe(1);
    listeners[0]!(undefined); // the ledger lost its store: this instance's own count only
    expect(view(0)).toBe(0);
    listeners[0]!({ seq: 1, counts: { r0: 2 } }); // after a loss, any snapshot counts again
    expect(view(0)).toBe(2);
  });

  it("counts its own take before the ledger confirms it, and the lease once it does", async () => {
    const { ledger, state } = testLedger();
    const { replicas, fleet, view } = setup(ledger);
    let open!: () => void;
    state.hold = new Promise((resolve) => {
      open = resolve;
    });
    await settle();
    const taking = fleet.take(replicas[1]!);
    expect(view(1)).toBe(1);
    open();
    const lease = await taking;
    expect(lease?.id).toBeDefined();
    expect(view(1)).toBe(1);
    fleet.give(lease!);
    expect(view(1)).toBe(0); // its release in transit no longer counts
    await settle();
    expect(view(1)).toBe(0);
  });

  it("wakes waiters when a count drops, not when one rises, and at the latest after retryMs", async () => {
    const { ledger, local } = testLedger();
    const { clock, counter, fleet } = setup(ledger);
    await settle();
    const lease = await local.take("r0", 2);
    let woken = 0;
    const signal = new AbortController().signal;
    const changed = (): Promise<void> => fleet.changed(signal).then(() => void woken++);
    const first = changed();
    await local.take("r1", 2);
    await settle();
    expect(woken).toBe(0);
    const before = counter.wakes;
    await local.release(lease!);
    await first;
    expect(woken).toBe(1);
    expect(counter.wakes).toBe(before + 1);

    const second = changed();
    clock.advance(999);
    await settle();
    expect(woken).toBe(1);
    clock.advance(1);
    await second;
    expect(woken).toBe(2);
  });

  it("counts an attempt sent while the ledger failed once it answers, and only once", async () => {
    const { ledger, local, state } = testLedger();
    const { replicas, fleet, view } = setup(ledger);
    await settle();
    state.down = true;
    const lease = (await fleet.take(replicas[0]!)) as Lease;
    expect(lease.id).toBeUndefined(); // sent under the replica's own limit
    expect(await local.counts(["r0"])).toEqual({ r0: 0 });
    state.down = false;
    await ledger.renew(); // the ledger answers again: a snapshot
    await settle();
    expect(lease.id).toBeDefined();
    expect(await local.counts(["r0"])).toEqual({ r0: 1 });
    await ledger.renew();
    await settle();
    expect(await local.counts(["r0"])).toEqual({ r0: 1 });
    expect(view(0)).toBe(1);
    fleet.give(lease);
    await settle();
    expect(await local.counts(["r0"])).toEqual({ r0: 0 });
  });

  it("keeps a lease granted after timeoutMs for its attempt, and gives it back when the attempt ended", async () => {
    const { ledger, local, state } = testLedger();
    const { replicas, fleet, clock } = setup(ledger);
    await settle();
    let open!: () => void;
    state.hold = new Promise((resolve) => {
      open = resolve;
    });
    const running = fleet.take(replicas[0]!);
    clock.advance(50);
    const lease = (await running) as Lease;
    expect(lease.id).toBeUndefined();
    open();
    await settle();
    expect(lease.id).toBeDefined(); // the late grant counts the attempt
    expect(await local.counts(["r0"])).toEqual({ r0: 1 });

    state.hold = new Promise((resolve) => {
      open = resolve;
    });
    const other = fleet.take(replicas[1]!);
    clock.advance(50);
    const ended = (await other) as Lease;
    fleet.give(ended); // the attempt ended before the grant came
    open();
    await settle();
    expect(await local.counts(["r1"])).toEqual({ r1: 0 });
  });
});

describe("Fleet after close", () => {
  it("shows this instance's own counts and still lets a refused request ask again every retryMs", async () => {
    const { ledger, local } = testLedger();
    const { clock, fleet, view } = setup(ledger);
    await local.take("r0", 2);
    expect(view(0)).toBe(1);
    fleet.close();
    expect(view(0)).toBe(0);
    let woken = false;
    const waiting = fleet.changed(new AbortController().signal).then(() => {
      woken = true;
    });
    clock.advance(999);
    await settle();
    expect(woken).toBe(false);
    clock.advance(1);
    await waiting;
    expect(woken).toBe(true);
  });
});

describe("routers over the fleet view", () => {
  it("prefix affinity spills a key off its replica when other instances load it, not on local counts alone", async () => {
    const { ledger, local } = testLedger();
    const { replicas, fleet } = setup(ledger);
    const placement = new Placement(replicas, prefixAffinity(), undefined, () => 0);
    const want = {
      priority: "p",
      tenant: undefined,
      routingKey: "system prompt A",
      tried: new Set<string>(),
    };
    const home = await placement.place(want, new AbortController().signal);
    home.replica.give(home.slot);
    // Other instances hold one lease on each slot of the key's replica: it spills to the other one.
    await local.take(home.replica.id, 2);
    await local.take(home.replica.id, 2);
    const spilled = await placement.place(want, new AbortController().signal);
    expect(spilled.replica.id).not.toBe(home.replica.id);
    spilled.replica.give(spilled.slot);
    fleet.close(); // own counts only again: the key goes home
    const back = await placement.place(want, new AbortController().signal);
    expect(back.replica.id).toBe(home.replica.id);
  });
});
