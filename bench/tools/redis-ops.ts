// Redis commands and FCALL CPU per store operation, without and with tenant quotas (the table that
// `pnpm bench redis` prints, on its own and quickly). Needs redis-server on PATH.
// Usage: node --conditions=source --import tsx bench/tools/redis-ops.ts [rounds=200]
import { startLocalRedis } from "@llm-scheduler/redis/local-server";
import { opCommandCosts } from "../lib/redis-op-commands.js";

const rounds = Number(process.argv[2] ?? 200);
const redis = await startLocalRedis();
try {
  for (const { name, fixed, ops } of await opCommandCosts(redis.url, rounds)) {
    console.log(`${name} (a release of an unknown id: ${fixed} commands)`);
    for (const { op, commands, usec, byCommand } of ops)
      console.log(
        `  ${op.padEnd(30)} ${commands.toFixed(2).padStart(6)} commands ${usec.toFixed(1).padStart(6)} µs  (${byCommand})`,
      );
  }
} finally {
  await redis.stop();
}
