// Where a workload allocates: V8's sampling heap profiler, keeping the samples of objects that the
// gc has already collected, so short-lived garbage shows too. Bytes are per task.
// Usage: node --expose-gc --conditions=source --import tsx bench/tools/alloc-sites.ts [throughput|floor|cancel|timeouts] [rows]
// (`floor`: the throughput workload through the floor of bench/lib/floor-queue.ts)
import { Session } from "node:inspector/promises";
import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import { core, floor, noop, submitAndAwait } from "../lib/contenders.js";
import { never } from "../lib/timing.js";

interface SampleNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly SampleNode[];
}

const SIZE = 20_000;
const ROUNDS = 10;

const workloads: Record<string, () => Promise<void>> = {
  throughput: () => submitAndAwait(core, SIZE),
  floor: () => submitAndAwait(floor, SIZE),
  cancel: async () => {
    const scheduler = createScheduler({ maxConcurrency: 1, priorities: { batch: { maxQueue: SIZE } } });
    void scheduler.run(never);
    const controllers = Array.from({ length: SIZE }, () => new AbortController());
    const pending = controllers.map((c) => scheduler.run(noop, { signal: c.signal }).catch(() => undefined));
    for (const controller of controllers) controller.abort(null);
    await Promise.all(pending);
  },
  timeouts: async () => {
    const clock = new VirtualClock(0);
    const scheduler = createScheduler({
      clock,
      maxConcurrency: 1,
      priorities: { batch: { queueTimeoutMs: 1_000, maxQueue: SIZE } },
    });
    void scheduler.run(never);
    const pending = Array.from({ length: SIZE }, () => scheduler.run(noop).catch(() => undefined));
    clock.advance(1_000);
    await Promise.all(pending);
  },
};

const [name = "throughput", rows = "25"] = process.argv.slice(2);
const workload = workloads[name];
if (workload === undefined)
  throw new Error(`Unknown workload ${name}; one of ${Object.keys(workloads).join(", ")}`);
await workload(); // warm-up
const session = new Session();
session.connect();
await session.post("HeapProfiler.startSampling", {
  samplingInterval: 256,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
for (let i = 0; i < ROUNDS; i++) await workload();
const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: { head: SampleNode } };
session.disconnect();

const bySite = new Map<string, number>();
let total = 0;
const walk = (node: SampleNode): void => {
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || "(anonymous)"}  ${url.split("/").slice(-2).join("/")}:${lineNumber + 1}`;
  bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
  total += node.selfSize;
  for (const child of node.children) walk(child);
};
walk(profile.head);
const tasks = SIZE * ROUNDS;
console.log(`${name}: about ${(total / tasks).toFixed(0)} bytes allocated per task (sampled)`);
for (const [key, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(rows))) {
  console.log(`${(bytes / tasks).toFixed(1).padStart(8)} B  ${key}`);
}
process.exit(0);
