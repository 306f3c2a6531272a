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
// class by class within that time, and added up weighted by each class's waiting: a class whose
// tickets hardly wait counts for little.
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

/** One instance's part of the time when every instance had a ticket waiting. */
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

/** One class on its own, in the same time: its share of all the waiting, and the worst ratio in it. */
export interface ClassShares {
  readonly waitShare: number;
  readonly worst: number;
}

export interface FleetShares {
  /** How long every instance had a ticket waiting, µs. */
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
  readonly group: number;
  readonly kind: "ask" | "grant" | "end";
}

/**
 * Every ask, grant and end in [`fromUs`, `endUs`), in time order (a ticket that waited since before
 * `fromUs` is asked at `fromUs`); at one time, asks first (a ticket may wait 0 µs).
 */
function changes(tickets: readonly InstanceTickets[], fromUs: number, endUs: number): Change[] {
  const all: Change[] = [];
  tickets.forEach(({ asked, granted, classes }, instance) => {
    for (let i = 0; i < asked.length; i++) {
      const from = asked[i]!;
      const to = granted[i]!;
      if (from >= endUs || (to >= 0 && to < fromUs)) continue;
      const group = classes?.[i] ?? 0;
      all.push({ at: Math.max(from, fromUs), instance, group, kind: "ask" });
      const stop = to >= 0 && to < endUs;
      all.push({ at: stop ? to : endUs, instance, group, kind: stop ? "grant" : "end" });
    }
  });
  return all.sort((a, b) => a.at - b.at || Number(b.kind === "ask") - Number(a.kind === "ask"));
}

/** Per class, per instance: grants, and waiting (tickets times µs) while every instance had a ticket waiting. */
interface Sweep {
  readonly grants: number[][];
  readonly area: number[][];
  readonly contendedUs: number;
}

function sweep(n: number, groups: number, all: readonly Change[]): Sweep {
  const table = (): number[][] => Array.from({ length: groups }, () => new Array<number>(n).fill(0));
  const waiting = table();
  const area = table();
  const grants = table();
  const held = new Array<number>(n).fill(0); // tickets waiting per instance, any class
  let busy = 0; // instances with a ticket waiting
  let contendedUs = 0;
  let last = 0;
  for (const { at, instance, group, kind } of all) {
    if (busy === n) {
      contendedUs += at - last;
      for (let g = 0; g < groups; g++) {
        for (let i = 0; i < n; i++) area[g]![i]! += (at - last) * waiting[g]![i]!;
      }
      if (kind === "grant") grants[group]![instance]!++;
    }
    last = at;
    const step = kind === "ask" ? 1 : -1;
    waiting[group]![instance]! += step;
    if (held[instance] === 0) busy++;
    held[instance]! += step;
    if (held[instance] === 0) busy--;
  }
  return { grants, area, contendedUs };
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

const worstOf = (ratios: readonly number[], contendedUs: number): number =>
  contendedUs > 0 ? Math.max(...ratios.map((ratio) => Math.abs(ratio - 1))) : Number.POSITIVE_INFINITY;

/**
 * Each instance's share of the grants made while every instance had a ticket waiting, over its share
 * of the tickets waiting then, class by class, from the tickets' times in [`fromUs`, `endUs`).
 *
 * @example
 * const { worst } = fleetShares([{ asked: [0, 0], granted: [10, 20] }, { asked: [0], granted: [30] }], 40);
 */
export function fleetShares(tickets: readonly InstanceTickets[], endUs: number, fromUs = 0): FleetShares {
  const n = tickets.length;
  // A reduce, not Math.max(...classes): a fast run records more tickets than a call can take arguments.
  const groups = 1 + tickets.reduce((top, t) => (t.classes ?? []).reduce((a, b) => Math.max(a, b), top), 0);
  const { grants, area, contendedUs } = sweep(n, groups, changes(tickets, fromUs, endUs));
  const total = sum(area.map(sum));
  const grantShares = new Array<number>(n).fill(0); // each class's share, weighted by its waiting
  const classes = area.map((classArea, g) => {
    const classWaiting = sum(classArea);
    const classGrants = Math.max(1, sum(grants[g]!));
    for (let i = 0; i < n; i++) grantShares[i]! += (grants[g]![i]! / classGrants) * classWaiting;
    const ratios = classArea.map((a, i) => grants[g]![i]! / classGrants / (a / classWaiting));
    return { waitShare: classWaiting / total, worst: worstOf(ratios, classWaiting > 0 ? contendedUs : 0) };
  });
  const instances = grantShares.map((weighted, i) => {
    const waitShare = sum(area.map((classArea) => classArea[i]!)) / total;
    const grantShare = weighted / total;
    const count = sum(grants.map((classGrants) => classGrants[i]!));
    return { grants: count, grantShare, waitShare, ratio: grantShare / waitShare };
  });
  const judged = total > 0 ? contendedUs : 0;
  return {
    contendedUs,
    instances,
    worst: worstOf(
      instances.map((s) => s.ratio),
      judged,
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
