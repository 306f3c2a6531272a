// The core's own price of one adapter request while slots are free: tryAcquire() with the options
// object the adapters build (`KnownTaskOptions`), the `preemptible` read the middleware makes, and
// release(), with `held` permits kept running meanwhile (like the HTTP part's 10 connections). Prints
// the CPU per grant and release in ns (min and median of 12 rounds):
//   node --conditions=source --import tsx bench/tools/permit-cost.ts [grants=300000] [held=8]
// Profile it with `node --cpu-prof --cpu-prof-dir=<dir> ...` and `bench/tools/cpu-top.ts`.
import { createScheduler } from "@llm-scheduler/core";
import { KnownTaskOptions } from "@llm-scheduler/core/kit";

const [grants = "300000", heldText = "8"] = process.argv.slice(2);
const scheduler = createScheduler({ maxConcurrency: 64 });
const held = Array.from({ length: Number(heldText) }, () => scheduler.tryAcquire());
const options = (): KnownTaskOptions => new KnownTaskOptions({});

function round(count: number): number {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const permit = scheduler.tryAcquire(options());
    if (permit === undefined) throw new Error("no free slot: raise maxConcurrency");
    if (permit.preemptible)
      throw new Error("a permit of a scheduler without preemption is never preemptible");
    permit.release();
  }
  const spent = process.cpuUsage(before);
  return ((spent.user + spent.system) * 1000) / count;
}

const rounds = Array.from({ length: 12 }, () => round(Number(grants))).sort((a, b) => a - b);
console.log(`ns of CPU per grant and release: min ${rounds[0]!.toFixed(0)}, median ${rounds[6]!.toFixed(0)}`);
for (const permit of held) permit?.release();
await scheduler.close();
