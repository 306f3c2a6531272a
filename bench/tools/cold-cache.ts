// What one tryAcquire() + release() costs with hot caches (a tight loop) and with cold ones (after
// touching a few MB of other memory, as a server does between two requests).
// Usage: node --conditions=source --import tsx bench/tools/cold-cache.ts [MB=4] [pairs=3000]
import { createScheduler } from "@llm-scheduler/core";

const megabytes = Number(process.argv[2] ?? 4);
const pairs = Number(process.argv[3] ?? 3_000);
const scheduler = createScheduler({ maxConcurrency: 64 });
const options = { priority: "interactive" };
const junk = new Float64Array((megabytes * 1024 * 1024) / 8);
const objects = Array.from({ length: 20_000 }, (_, i) => ({ value: i }));

function evict(): number {
  let sum = 0;
  for (let i = 0; i < junk.length; i += 8) sum += junk[i]!; // one read per 64-byte line
  for (const object of objects) sum += object.value;
  return sum;
}

/** Mean µs of a pair (or of nothing, to subtract the timer's own cost), each after an eviction. */
function cold(withPair: boolean): number {
  let total = 0;
  for (let i = 0; i < pairs; i++) {
    evict();
    const start = performance.now();
    if (withPair) scheduler.tryAcquire(options)?.release();
    total += performance.now() - start;
  }
  return (total * 1000) / pairs;
}

function hot(count: number): number {
  const start = performance.now();
  for (let i = 0; i < count; i++) scheduler.tryAcquire(options)?.release();
  return ((performance.now() - start) * 1000) / count;
}

cold(true);
hot(200_000);
for (let round = 1; round <= 3; round++) {
  const coldPair = cold(true) - cold(false);
  console.log(`round ${round}: hot ${hot(1_000_000).toFixed(2)} µs, cold ${coldPair.toFixed(2)} µs per pair`);
}
