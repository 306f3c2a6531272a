// The 4-instance run of `pnpm bench redis` alone (functions), `rounds` times: decisions per second,
// Redis CPU and the instances' own CPU per decision (INFO cpu; `process.cpuUsage` in each instance),
// decisions per script call (and the grant messages to other instances per decision: PUBLISH, and
// RPUSH to their inboxes) and the p50 wait of an acquire. To compare two checkouts, run it from
// each in turn, alternating, and compare the rounds made at the same time.
// Usage: node --conditions=source --import tsx bench/tools/redis-fleet.ts [rounds=1] [seconds=5] [loops=128]
import { runFleet } from "../lib/redis-fleet.js";

const rounds = Number(process.argv[2] ?? 1);
const seconds = Number(process.argv[3] ?? 5);
const loops = Number(process.argv[4] ?? 128);
for (let round = 0; round < rounds; round++) {
  const fleet = await runFleet({ loops: [loops, loops, loops, loops], limit: 2 * loops, holdMs: 0, seconds });
  const decisions = fleet.decisionsPerSecond * seconds;
  const nodeUs = fleet.instances.reduce((sum, r) => sum + r.cpuUs, 0) / Math.max(1, decisions);
  const perCall = fleet.decisionsPerSecond / Math.max(1, fleet.scriptCallsPerSecond);
  const perDecision = (command: string): string =>
    (fleet.commands.find((c) => c.command === command)?.perDecision ?? 0).toFixed(3);
  console.log(
    `${Math.round(fleet.decisionsPerSecond)} decisions/s, Redis ${fleet.redisCpuPerDecisionUs.toFixed(2)} µs/decision ` +
      `(inside calls ${fleet.scriptUsPerDecision.toFixed(2)}), Node ${nodeUs.toFixed(2)} µs/decision, ` +
      `${perCall.toFixed(1)} decisions/call (publish ${perDecision("publish")}, rpush ${perDecision("rpush")} per decision), p50 wait ${(fleet.p50WaitUs / 1000).toFixed(3)} ms, ` +
      `refused ${fleet.refused}, store errors ${fleet.storeErrors}`,
  );
}
