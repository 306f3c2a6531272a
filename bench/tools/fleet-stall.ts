// The fleet run through a Redis that stops answering for a while: the part's redis-server is paused
// (SIGSTOP) `at` ms after the run was started, for `for` ms, then resumed (SIGCONT). Calls in flight go
// `commandTimeoutMs` (2 s) without a reply, the stores count Redis as down and refuse acquires; the
// instances count the refusals, ask again, and the run ends with its figures. Needs redis-server and
// pgrep on PATH.
// Usage: node --conditions=source --import tsx bench/tools/fleet-stall.ts [instances=4] [at=6000] [for=3000] [seconds=8]
import { execFileSync } from "node:child_process";
import { runFleet } from "../lib/redis-fleet.js";

const arg = (i: number, fallback: number): number => Number(process.argv[2 + i] ?? fallback);
const [count, at, pause, seconds] = [arg(0, 4), arg(1, 6_000), arg(2, 3_000), arg(3, 8)];
/** The redis-server this process started (runFleet's own). */
const redisPid = (): number =>
  Number(execFileSync("pgrep", ["-P", String(process.pid), "redis-server"], { encoding: "utf8" }).trim());

const stall = setTimeout(() => {
  const pid = redisPid();
  process.kill(pid, "SIGSTOP");
  console.log(`redis-server ${pid} paused`);
  setTimeout(() => {
    process.kill(pid, "SIGCONT");
    console.log(`redis-server ${pid} resumed after ${pause} ms`);
  }, pause);
}, at);
const loops = Array.from({ length: count }, (_, i) => 8 * (1 + (i % 2)));
const fleet = await runFleet({ loops, limit: 4 * count, holdMs: 1, seconds });
clearTimeout(stall);
console.log(
  `decisions/s ${fleet.decisionsPerSecond.toFixed(0)}, most held ${fleet.mostHeld} of ${4 * count}`,
);
console.log(
  `refused ${fleet.instances.map((r) => r.refused).join(" ")} (instances), store errors ${fleet.storeErrors}`,
);
console.log(`worst share / waiting ${(fleet.shares.worst * 100).toFixed(1)}%`);
