// Instructions per decision inside Redis in redis-steady.ts's steady state, counted by valgrind
// (callgrind) on the redis-server: a count that a loaded machine barely moves, unlike CPU time. One
// redis-server under callgrind per library; the counters are zeroed after the warm-up and dumped after
// the steady calls. With `--against <checkout>`, another checkout's library is counted the same way;
// the floor (bench/lib/redis-floor.ts) always. `--server` runs another redis-server binary (one built
// with symbols shows where the instructions go: KEEP_DUMP=1 keeps the dump for callgrind_annotate).
// Needs valgrind. Usage:
//   node --conditions=source --import tsx bench/tools/redis-ir.ts [--calls 50] [--against <dir>] [--server <path>]
import { execFileSync, spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import * as here from "@llm-scheduler/redis/layout";
import { Redis } from "ioredis";
import { floorLoad } from "../lib/redis-floor.js";
import { type SteadyLoad, steadyLoad } from "../lib/redis-steady-load.js";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "50" },
    against: { type: "string" },
    server: { type: "string", default: "redis-server" },
  },
});

type Load = (redis: Redis, prefix: string) => Promise<SteadyLoad>;

/** Instructions per decision of `calls` steady calls of `load` on a fresh redis-server. */
async function count(makeLoad: Load, port: number): Promise<number> {
  const out = `/tmp/redis-ir-${process.pid}-${port}.out`;
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--compress-strings=no",
      `--callgrind-out-file=${out}`,
      values.server,
      "--port",
      String(port),
      "--save",
      "",
    ],
    { stdio: "ignore" },
  );
  const redis = new Redis({ port, retryStrategy: () => 200, maxRetriesPerRequest: null });
  try {
    await redis.ping();
    const load = await makeLoad(redis, "ir:");
    await load.run(5);
    execFileSync("callgrind_control", ["-z", String(child.pid)]);
    await load.run(Number(values.calls));
    execFileSync("callgrind_control", ["-d", String(child.pid)]);
    const dumps = readFileSync(`${out}.1`, "utf8");
    const total = Number(/^summary: (\d+)/m.exec(dumps)?.[1] ?? /^totals: (\d+)/m.exec(dumps)?.[1]);
    return total / load.decisions(Number(values.calls));
  } finally {
    await redis.quit();
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    rmSync(out, { force: true });
    if (process.env.KEEP_DUMP === undefined) rmSync(`${out}.1`, { force: true });
  }
}

const loads: Array<[string, Load]> = [["this checkout", (redis, prefix) => steadyLoad(redis, here, prefix)]];
if (values.against !== undefined) {
  const other = await import(`${values.against}/packages/redis/src/layout.ts`);
  loads.push([values.against, (redis, prefix) => steadyLoad(redis, other, prefix)]);
}
loads.push(["floor (a counter and one list)", floorLoad]);
for (const [i, [name, load]] of loads.entries()) {
  const ir = await count(load, 6600 + (process.pid % 1000) * 3 + i);
  console.log(`${name}: ${Math.round(ir)} instructions per decision inside redis-server`);
}
