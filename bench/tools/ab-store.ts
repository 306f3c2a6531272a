// Two builds of the memory store alone on the throughput workload's shape: CPU time per task of each,
// and their ratio. No scheduler, no promises: a host that records each grant, N tickets enqueued (every
// 4th interactive, 16 tenants, concurrency 8), then every running ticket released in grant order until
// all have run, so the figure is the store's own enqueue, pick, start and release.
// Each build runs in a child process of its own (two builds in one process bias the second by up to
// 40% here: they share the tickets' hidden classes), A and B alternating pair by pair; each child
// reports the median of its rounds, and the result is the median of the pairs' B/A ratios.
// Usage: node --import tsx bench/tools/ab-store.ts <distA> <distB> [N=20000] [pairs=7] [rounds=9]
//   pnpm build && cp -r packages/core/dist /tmp/store-a   # before the change
//   pnpm build && node --import tsx bench/tools/ab-store.ts /tmp/store-a packages/core/dist
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { CONCURRENCY, isInteractive, TENANTS } from "../lib/contenders.js";

interface Ticket {
  seq: number;
  priority: string;
  tenant: string;
  enqueuedAt: number;
}
interface StoreLike {
  attach(host: unknown, config: unknown): void;
  enqueue(ticket: Ticket): unknown;
  release(ticket: Ticket): void;
}
interface Build {
  readonly Store: new () => StoreLike;
  readonly config: unknown;
}

/** Shaped like the scheduler's task record: the store's links in the record, settings behind getters. */
class BenchTicket implements Ticket {
  declare seq: number;
  declare priority: string;
  declare tenant: string;
  declare enqueuedAt: number;
  declare extras: { cost: number; tokens: number; retry: boolean } | null;
  declare prev: unknown;
  declare next: unknown;
  declare queuedIn: unknown;

  constructor(seq: number, priority: string, tenant: string, enqueuedAt: number) {
    this.seq = seq;
    this.priority = priority;
    this.tenant = tenant;
    this.enqueuedAt = enqueuedAt;
    this.extras = null;
    this.prev = null;
    this.next = null;
    this.queuedIn = null;
  }

  get cost(): number {
    return this.extras?.cost ?? 1;
  }

  get tokens(): number {
    return this.extras?.tokens ?? 0;
  }

  get retry(): boolean {
    return this.extras?.retry ?? false;
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function load(dir: string, size: number): Promise<Build> {
  const url = (file: string): string => pathToFileURL(resolve(dir, file)).href;
  const { MemoryStore } = (await import(url("memory/memory-store.js"))) as { MemoryStore: Build["Store"] };
  const { resolveOptions } = (await import(url("resolve-options.js"))) as {
    resolveOptions(options: unknown): unknown;
  };
  const { storeConfigOf } = (await import(url("options.js"))) as { storeConfigOf(options: unknown): unknown };
  const options = resolveOptions({
    maxConcurrency: CONCURRENCY,
    priorities: {
      interactive: { weight: 5, reserved: 1, queueTimeoutMs: 600_000, maxQueue: size },
      batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue: size },
    },
  });
  return { Store: MemoryStore, config: storeConfigOf(options) };
}

/** CPU µs per task for one run of `size` tickets through a fresh store. */
function cpuPerTask({ Store, config }: Build, size: number): number {
  const store = new Store();
  const granted: Ticket[] = [];
  const clock = { now: () => performance.now() };
  store.attach({ clock, grant: (ticket: Ticket) => granted.push(ticket), fail() {}, revoke() {} }, config);
  const tickets = Array.from(
    { length: size },
    (_, i) => new BenchTicket(i, isInteractive(i) ? "interactive" : "batch", TENANTS[i & 15]!, 0),
  );
  globalThis.gc?.();
  const before = process.cpuUsage();
  for (const ticket of tickets) {
    if (store.enqueue(ticket) === "granted") granted.push(ticket);
  }
  for (let head = 0; head < granted.length; head++) store.release(granted[head]!);
  const used = process.cpuUsage(before);
  if (granted.length !== size) throw new Error(`${granted.length} of ${size} tickets ran`);
  return (used.user + used.system) / size;
}

/** In a child: the median CPU ns per task of one build over `rounds` runs, after 3 warm-up runs. */
async function one(dir: string, size: number, rounds: number): Promise<void> {
  const build = await load(dir, size);
  for (let i = 0; i < 3; i++) cpuPerTask(build, size);
  const times = Array.from({ length: rounds }, () => cpuPerTask(build, size));
  console.log(String(median(times) * 1000));
}

const args = process.argv.slice(2);
if (args[0] === "--one") {
  await one(args[1]!, Number(args[2]), Number(args[3]));
} else {
  const [dirA, dirB, size = "20000", pairsText = "7", rounds = "9"] = args;
  if (dirA === undefined || dirB === undefined)
    throw new Error("Usage: ab-store.ts <distA> <distB> [N] [pairs] [rounds]");
  const child = (dir: string): number =>
    Number(
      execFileSync(
        process.execPath,
        ["--expose-gc", "--import", "tsx", process.argv[1]!, "--one", dir, size, rounds],
        { encoding: "utf8" },
      ),
    );
  const a: number[] = [];
  const b: number[] = [];
  for (let pair = 0; pair < Number(pairsText); pair++) {
    // Alternate which build goes first, so that neither always follows the other.
    const first = pair % 2 === 0;
    const [x, y] = first ? [child(dirA), child(dirB)] : [child(dirB), child(dirA)];
    a.push(first ? x : y);
    b.push(first ? y : x);
  }
  const ratios = a.map((value, i) => b[i]! / value);
  console.log(
    `N = ${size}, ${pairsText} pairs of processes: A ${median(a).toFixed(0)} ns CPU per task, B ${median(b).toFixed(0)} ns, B/A ${median(ratios).toFixed(3)} (pairs ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})`,
  );
}
