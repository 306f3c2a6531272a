// Fairness across the instances of a fleet: while every instance has a ticket waiting, each one's
// share of the grants against its share of the tickets waiting.
//
// An instance whose process gets less CPU offers fewer tickets (it asks again later after each release)
// and so gets fewer grants: that is its demand falling, not the store favouring the others. So the
// measure looks only at the time when every instance had at least one ticket waiting, and weighs each
// instance by how many of its tickets waited then (tickets times time). A store that serves waiting
// tickets in arrival order, whoever sent them, gives every instance the same mean wait and so a share
// of the grants equal to its share of the waiting: a ratio of 1. One that favours an instance's
// tickets shortens their wait and raises its ratio above 1.
//
// Tickets of different classes (priority and tenant) wait for different lengths by design, and an
// instance whose interactive loops turn faster has more of the short waits. So the shares are taken
// class by class (the time when every instance had a ticket of that class waiting), and added up
// weighted by each class's waiting: a class whose tickets hardly wait counts for little.
//
// The times are the instance's own (the ticket asked for before the store sent it, granted once the
// instance saw the grant), so an instance that is slow to notice its grants shows a ratio below 1, the
// more so in a class whose tickets wait briefly.

/** One instance's tickets, µs from the common start; `granted` is -1 for a ticket never granted. */
export interface InstanceTickets {
  readonly asked: readonly number[];
  readonly granted: readonly number[];
  /** Each ticket's class (e.g. its priority and tenant), a small integer; all 0 when left out. */
  readonly classes?: readonly number[];
}

/** One instance's part of the time when every instance had a ticket (of a class) waiting. */
export interface InstanceShare {
  /** Tickets granted then. */
  readonly grants: number;
  /** Its share of those grants, class by class, weighted by each class's waiting; 0 to 1. */
  readonly grantShare: number;
  /** Its share of the tickets waiting then (tickets times time), 0 to 1. */
  readonly waitShare: number;
  /** `grantShare / waitShare`: 1 when its tickets waited as long as everyone's of their class. */
  readonly ratio: number;
}

/** One class on its own: how long every instance had a ticket of it waiting, and the worst ratio then. */
export interface ClassShares {
  readonly contendedUs: number;
  readonly worst: number;
}

export interface FleetShares {
  /** The longest time every instance had a ticket of one class waiting, µs (the classes overlap in time). */
  readonly contendedUs: number;
  readonly instances: readonly InstanceShare[];
  /** The largest `|ratio - 1|`; Infinity when there was no such time (nothing to judge). */
  readonly worst: number;
  /** Each class on its own, by class number. */
  readonly classes: readonly ClassShares[];
}

/** A ticket starts waiting (an ask), or stops: granted, or still waiting at the end. */
interface Change {
  readonly at: number;
  readonly instance: number;
  readonly kind: "ask" | "grant" | "end";
}

/**
 * The class's asks, grants and ends in [`fromUs`, `endUs`), in time order (a ticket that waited since
 * before `fromUs` is asked at `fromUs`); at one time, asks first (a ticket may wait 0 µs).
 */
function changes(tickets: readonly InstanceTickets[], kind: number, fromUs: number, endUs: number): Change[] {
  const all: Change[] = [];
  tickets.forEach(({ asked, granted, classes }, instance) => {
    for (let i = 0; i < asked.length; i++) {
      const from = asked[i]!;
      const to = granted[i]!;
      if (from >= endUs || (to >= 0 && to < fromUs) || (classes?.[i] ?? 0) !== kind) continue;
      all.push({ at: Math.max(from, fromUs), instance, kind: "ask" });
      all.push(
        to >= 0 && to < endUs ? { at: to, instance, kind: "grant" } : { at: endUs, instance, kind: "end" },
      );
    }
  });
  return all.sort((a, b) => a.at - b.at || Number(b.kind === "ask") - Number(a.kind === "ask"));
}

/** One class: grants and waiting (tickets times µs) per instance while every instance had one waiting. */
function sweep(n: number, all: readonly Change[]): { grants: number[]; area: number[]; contendedUs: number } {
  const waiting = new Array<number>(n).fill(0);
  const area = new Array<number>(n).fill(0);
  const grants = new Array<number>(n).fill(0);
  let busy = 0; // instances with a ticket waiting
  let contendedUs = 0;
  let last = 0;
  for (const { at, instance, kind } of all) {
    if (busy === n) {
      contendedUs += at - last;
      for (let i = 0; i < n; i++) area[i]! += (at - last) * waiting[i]!;
      if (kind === "grant") grants[instance]!++;
    }
    last = at;
    if (kind === "ask") {
      if (waiting[instance] === 0) busy++;
      waiting[instance]!++;
    } else {
      waiting[instance]!--;
      if (waiting[instance] === 0) busy--;
    }
  }
  return { grants, area, contendedUs };
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

const worstOf = (ratios: readonly number[], contendedUs: number): number =>
  contendedUs > 0 ? Math.max(...ratios.map((ratio) => Math.abs(ratio - 1))) : Number.POSITIVE_INFINITY;

/**
 * Each instance's share of the grants made while every instance had a ticket of the same class
 * waiting, over its share of the tickets waiting then, from the tickets' times in [`fromUs`, `endUs`).
 *
 * @example
 * const { worst } = fleetShares([{ asked: [0, 0], granted: [10, 20] }, { asked: [0], granted: [30] }], 40);
 */
export function fleetShares(tickets: readonly InstanceTickets[], endUs: number, fromUs = 0): FleetShares {
  const n = tickets.length;
  const count = 1 + Math.max(0, ...tickets.flatMap((t) => t.classes ?? []));
  const sweeps = Array.from({ length: count }, (_, kind) => sweep(n, changes(tickets, kind, fromUs, endUs)));
  const grantShares = new Array<number>(n).fill(0); // weighted by the class's waiting, summed
  const waiting = new Array<number>(n).fill(0);
  const grants = new Array<number>(n).fill(0);
  const classes = sweeps.map(({ grants: classGrants, area, contendedUs }) => {
    const classWaiting = sum(area);
    const classTotal = Math.max(1, sum(classGrants));
    for (let i = 0; i < n; i++) {
      grantShares[i]! += (classGrants[i]! / classTotal) * classWaiting;
      waiting[i]! += area[i]!;
      grants[i]! += classGrants[i]!;
    }
    const ratios = classGrants.map((g, i) => g / classTotal / (area[i]! / classWaiting));
    return { contendedUs, worst: worstOf(ratios, contendedUs) };
  });
  const total = sum(waiting);
  const instances = grants.map((count, i) => {
    const grantShare = grantShares[i]! / total;
    const waitShare = waiting[i]! / total;
    return { grants: count, grantShare, waitShare, ratio: grantShare / waitShare };
  });
  const contendedUs = Math.max(...sweeps.map((s) => s.contendedUs));
  return {
    contendedUs,
    instances,
    worst: worstOf(
      instances.map((s) => s.ratio),
      total > 0 ? contendedUs : 0,
    ),
    classes,
  };
}

/**
 * How far the ratios move by chance: the run cut into `blocks` equal spans, each instance's ratio in
 * each span, and the standard error of its mean (the spread over the spans over the square root of
 * their number), as a root mean square over the instances. A store that serves every instance alike
 * still shows deviations of about twice this in the worst of 16 instances.
 */
export function sharesNoise(tickets: readonly InstanceTickets[], endUs: number, blocks = 5): number {
  const spans = Array.from({ length: blocks }, (_, b) =>
    fleetShares(tickets, ((b + 1) * endUs) / blocks, (b * endUs) / blocks),
  );
  const squares = tickets.map((_, i) => {
    const ratios = spans.map((span) => span.instances[i]!.ratio).filter(Number.isFinite);
    const mean = sum(ratios) / ratios.length;
    const variance = sum(ratios.map((r) => (r - mean) ** 2)) / Math.max(1, ratios.length - 1);
    return variance / ratios.length;
  });
  return Math.sqrt(sum(squares) / squares.length);
}
