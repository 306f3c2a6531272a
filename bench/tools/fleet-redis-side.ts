// The fleet part's fairness seen from both sides in one run: each instance's share of the grants over
// its share of the waiting, from the instances' own times and from when Redis admitted and granted
// each ticket (MONITOR, which slows Redis down: the other figures of this run mean little).
// Needs redis-server on PATH.
// Usage: node --conditions=source --import tsx bench/tools/fleet-redis-side.ts [instances=16] [seconds=5]
import { runFleet } from "../lib/redis-fleet.js";

const count = Number(process.argv[2] ?? 16);
const seconds = Number(process.argv[3] ?? 5);
// the sizes of `pnpm bench fleet`: 8 or 16 loops per instance, alternating, a limit of 4 per instance
const loops = Array.from({ length: count }, (_, i) => 8 * (1 + (i % 2)));
const fleet = await runFleet({ loops, limit: 4 * count, holdMs: 1, seconds, redisSide: true });
const redis = fleet.redisShares!;
console.log("instance  loops  loop delay  mean acquire  grant/waiting (instance)  grant/waiting (Redis)");
fleet.instances.forEach((r, i) => {
  const cells = [
    String(i).padStart(8),
    String(r.loops).padStart(5),
    `${r.loopDelayMs.toFixed(1)} ms`.padStart(10),
    `${(fleet.meanWaitUs[i]! / 1000).toFixed(2)} ms`.padStart(12),
    fleet.shares.instances[i]!.ratio.toFixed(3).padStart(24),
    redis.instances[i]!.ratio.toFixed(3).padStart(21),
  ];
  console.log(cells.join("  "));
});
const percent = (x: number) => `${(x * 100).toFixed(1)}%`;
console.log(`worst: instance ${percent(fleet.shares.worst)}, Redis ${percent(redis.worst)}`);
console.log(
  `contended: instance ${percent(fleet.shares.contendedUs / (seconds * 1e6))}, Redis ${(redis.contendedUs / 1e6).toFixed(2)} s`,
);
fleet.shares.classes.forEach((share, k) => {
  const seen = redis.classes[k];
  console.log(
    `class ${k}: worst instance ${percent(share.worst)}, Redis ${seen === undefined ? "-" : percent(seen.worst)}`,
  );
});
console.log(`grants while all waited: instance ${fleet.shares.instances.map((s) => s.grants).join(" ")}`);
console.log(`                          Redis ${redis.instances.map((s) => s.grants).join(" ")}`);
console.log(
  `most held ${fleet.mostHeld} of ${4 * count}, refused ${fleet.refused}, store errors ${fleet.storeErrors}`,
);
