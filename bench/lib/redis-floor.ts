// The floor: the least Lua that makes an atomic grant-or-queue decision, a running counter and one
// FIFO list, with nothing else the store does (no priorities, tenants, leases, quotas, owners or
// counts). Run in the same steady shape as the store (redis-steady-load.ts): each call releases 32
// tickets (each release hands its slot to the first waiting ticket) and enqueues 32 (granted while a
// slot is free, else queued), with 32 slots held and about 450 tickets waiting.
import type { Redis } from "ioredis";
import type { SteadyLoad } from "./redis-steady-load.js";

const BATCH = 32;
const WAITING = 450;

/** KEYS: running counter, queue. ARGV: limit, count R of releases, then R released ids, then ids to enqueue. */
const SOURCE = `#!lua name=bench_floor
redis.register_function("bench_floor", function(keys, args)
  local running = tonumber(redis.call("GET", keys[1])) or 0
  local limit, releases = tonumber(args[1]), tonumber(args[2])
  local granted = {}
  for _ = 1, releases do
    local next = redis.call("LPOP", keys[2])
    if next then granted[#granted + 1] = next else running = running - 1 end
  end
  for i = 3 + releases, #args do
    if running < limit then
      running = running + 1
      granted[#granted + 1] = args[i]
    else
      redis.call("RPUSH", keys[2], args[i])
    end
  end
  redis.call("SET", keys[1], running)
  return granted
end)
`;

/** The floor's steady load under `prefix`, its state created and its waiting tickets queued. */
export async function floorLoad(redis: Redis, prefix: string): Promise<SteadyLoad> {
  await redis.call("FUNCTION", "LOAD", "REPLACE", SOURCE);
  const keys = [`${prefix}running`, `${prefix}queue`];
  let seq = 0;
  const running: string[] = [];
  const step = async (released: string[], count: number): Promise<void> => {
    const ids = Array.from({ length: count }, () => `b:${++seq}`);
    const granted = (await redis.fcall(
      "bench_floor",
      2,
      ...keys,
      BATCH,
      released.length,
      ...released,
      ...ids,
    )) as string[];
    running.push(...granted);
  };
  await step([], WAITING);
  return {
    async run(calls) {
      for (let i = 0; i < calls; i++) await step(running.splice(0, BATCH), BATCH);
    },
    decisions: (calls) => calls * 2 * BATCH,
  };
}
