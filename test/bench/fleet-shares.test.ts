// The fleet's fairness measure must pass a store that serves tickets in arrival order, even when one
// instance is slow to ask again, and must fail one that favours an instance's tickets.
import { describe, expect, it } from "vitest";
import { fleetShares, type InstanceTickets, sharesNoise } from "../../bench/lib/fleet-shares.js";

interface Waiting {
  readonly instance: number;
  readonly loop: number;
  readonly asked: number;
}

interface Fleet {
  /** Concurrent acquire/release loops of each instance. */
  readonly loops: readonly number[];
  /** How long each instance takes to ask again after a release, µs (a process short of CPU). */
  readonly pauses: readonly number[];
  readonly limit: number;
  readonly holdUs: number;
  readonly endUs: number;
  /** Which waiting ticket the store grants next (an index into `waiting`, in arrival order). */
  readonly pick: (waiting: readonly Waiting[]) => number;
  /** Each loop's class (priority and tenant); all 0 when left out. */
  readonly classOf?: (ticket: Waiting) => number;
}

/**
 * A fleet on one store, in virtual time, 10 µs steps: every loop asks, waits, holds (0.5 to 1.5 times
 * `holdUs`, from a seeded generator, so that the loops drift out of step), releases and pauses.
 */
function simulate(fleet: Fleet): InstanceTickets[] {
  let seed = 1;
  const hold = (): number => {
    seed = (seed * 48_271) % 2_147_483_647;
    return Math.round(fleet.holdUs * (0.5 + seed / 2_147_483_647));
  };
  const tickets = fleet.loops.map(() => ({
    asked: [] as number[],
    granted: [] as number[],
    classes: [] as number[],
  }));
  let asks: Waiting[] = fleet.loops.flatMap((count, instance) =>
    Array.from({ length: count }, (_, loop) => ({ instance, loop, asked: 0 })),
  );
  let running: { ticket: Waiting; until: number }[] = [];
  const record = (ticket: Waiting, granted: number): void => {
    const of = tickets[ticket.instance]!;
    of.asked.push(ticket.asked);
    of.granted.push(granted);
    of.classes.push(fleet.classOf?.(ticket) ?? 0);
  };
  const waiting: Waiting[] = [];
  for (let now = 0; now <= fleet.endUs; now += 10) {
    for (const { ticket, until } of running.filter((held) => held.until <= now)) {
      asks.push({ ...ticket, asked: until + fleet.pauses[ticket.instance]! });
    }
    running = running.filter((held) => held.until > now);
    waiting.push(...asks.filter((ask) => ask.asked <= now));
    asks = asks.filter((ask) => ask.asked > now);
    while (running.length < fleet.limit && waiting.length > 0) {
      const [ticket] = waiting.splice(fleet.pick(waiting), 1);
      record(ticket!, now);
      running.push({ ticket: ticket!, until: now + hold() });
    }
  }
  for (const ticket of waiting) record(ticket, -1);
  return tickets;
}

const inArrivalOrder = (): number => 0;
/** Every fourth grant to the oldest waiting ticket of instance 0 if it has one, the others in arrival order. */
function favouringFirst(): (waiting: readonly Waiting[]) => number {
  let picks = 0;
  return (waiting) =>
    ++picks % 4 === 0
      ? Math.max(
          0,
          waiting.findIndex((ticket) => ticket.instance === 0),
        )
      : 0;
}

/** The first waiting ticket of class 0 (an interactive priority that always goes first), else the oldest. */
const classZeroFirst =
  (classOf: (ticket: Waiting) => number) =>
  (waiting: readonly Waiting[]): number =>
    Math.max(
      0,
      waiting.findIndex((ticket) => classOf(ticket) === 0),
    );

const fleet = {
  loops: [4, 8, 4, 8],
  pauses: [100, 100, 100, 100],
  limit: 8,
  holdUs: 1_000,
  endUs: 200_000,
  pick: inArrivalOrder,
};

/** Each instance's share of the cycles over its share of the loops (the measure this one replaced). */
function cyclesOverLoops(tickets: readonly InstanceTickets[], loops: readonly number[]): number[] {
  const cycles = tickets.map((t) => t.granted.filter((at) => at >= 0).length);
  const total = cycles.reduce((a, b) => a + b, 0);
  const demand = loops.reduce((a, b) => a + b, 0);
  return cycles.map((count, i) => count / total / (loops[i]! / demand));
}

describe("fleetShares", () => {
  it("counts only the time when every instance waits, weighted by how many wait", () => {
    // instance 0 waits with 2 tickets from 0 to 10, 1 from 10 to 20; instance 1 with 1 from 5 to 30
    const shares = fleetShares(
      [
        { asked: [0, 0], granted: [10, 20] },
        { asked: [5], granted: [30] },
      ],
      40,
    );
    expect(shares.contendedUs).toBe(15); // 5 to 20
    // waiting then: instance 0, 2 x 5 + 1 x 10 = 20; instance 1, 15; grants: 0 got two (10, 20), 1 none
    expect(shares.instances.map((s) => s.grants)).toEqual([2, 0]);
    expect(shares.instances[0]!.waitShare).toBeCloseTo(20 / 35);
    expect(shares.instances[0]!.ratio).toBeCloseTo(35 / 20);
    expect(shares.instances[1]!.ratio).toBe(0);
  });

  it("starts a window later: a ticket waiting since before counts from its start", () => {
    const example = [
      { asked: [0, 0], granted: [10, 20] },
      { asked: [5], granted: [30] },
    ];
    const later = fleetShares(example, 40, 8);
    expect(later.contendedUs).toBe(12); // 8 to 20
    expect(later.instances.map((s) => s.grants)).toEqual([2, 0]);
    expect(fleetShares(example, 40, 25).contendedUs).toBe(0);
  });

  it("stops a ticket still waiting at the end, and cannot judge a run where nobody waited together", () => {
    const shares = fleetShares(
      [
        { asked: [0, 50], granted: [10, -1] },
        { asked: [20], granted: [30] },
      ],
      60,
    );
    expect(shares.contendedUs).toBe(0);
    expect(shares.worst).toBe(Number.POSITIVE_INFINITY);
  });

  it("holds for a store serving in arrival order, whatever the loops per instance", () => {
    const shares = fleetShares(simulate(fleet), fleet.endUs);
    expect(shares.contendedUs).toBeGreaterThan(0.9 * fleet.endUs);
    expect(shares.worst).toBeLessThan(0.02);
    const noise = sharesNoise(simulate(fleet), fleet.endUs);
    expect(noise).toBeGreaterThan(0);
    expect(noise).toBeLessThan(0.05);
  });

  it("holds when one instance is slow to ask again, which the share of the cycles blames on the store", () => {
    const slow = { ...fleet, pauses: [1_000, 100, 100, 100] };
    const tickets = simulate(slow);
    expect(fleetShares(tickets, slow.endUs).worst).toBeLessThan(0.05);
    expect(cyclesOverLoops(tickets, slow.loops)[0]).toBeLessThan(0.9);
  });

  it("compares each class's tickets only with their own class, whose waits differ by design", () => {
    // instance 0: three of its four loops interactive (short waits); the others: one in four
    const classOf = (t: Waiting): number => (t.loop % 4 < (t.instance === 0 ? 3 : 1) ? 0 : 1);
    const mixed = { ...fleet, classOf, pick: classZeroFirst(classOf) };
    const tickets = simulate(mixed);
    const shares = fleetShares(tickets, mixed.endUs);
    expect(shares.classes).toHaveLength(2);
    expect(shares.worst).toBeLessThan(0.05);
    const oneClass = tickets.map(({ asked, granted }) => ({ asked, granted }));
    expect(fleetShares(oneClass, mixed.endUs).worst).toBeGreaterThan(0.1);
  });

  it("fails a store that favours one instance's tickets", () => {
    const unfair = { ...fleet, pick: favouringFirst() };
    const shares = fleetShares(simulate(unfair), unfair.endUs);
    expect(shares.instances[0]!.ratio).toBeGreaterThan(1.1);
    expect(shares.worst).toBeGreaterThan(0.1);
  });
});
