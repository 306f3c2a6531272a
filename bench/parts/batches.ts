// Part: the batch layer. Items per second with an instant upstream (in memory, and three instances
// sharing Redis), Redis commands per item, overhead per item against plain scheduler.run(), and the
// memory an instance holds while a big input file is uploaded and made a batch.
import { startRedisServer } from "../../test/redis/redis-server.js";
import { bigFile, memoryBatch, plainRun, redisBatch } from "../batches/measures.js";
import { num } from "../lib/format.js";
import type { Part } from "../lib/part.js";
import { median } from "../lib/stats.js";

export const run: Part = async ({ quick, runs: asked, log }) => {
  const n = quick ? 2_000 : 20_000;
  const redisN = quick ? 500 : 5_000;
  const megabytes = quick ? 20 : 200;
  const runs = asked ?? (quick ? 1 : 3);
  const plain: number[] = [];
  const memory: number[] = [];
  for (let round = 0; round <= runs; round++) {
    const p = await plainRun(n);
    const m = await memoryBatch(n);
    if (round > 0) {
      plain.push(p);
      memory.push(m);
    }
    log(round === 0 ? "warm-up done" : `memory round ${round}/${runs}`);
  }
  const redis = await startRedisServer();
  try {
    const shared = [];
    for (let round = 0; round < runs; round++) {
      shared.push(await redisBatch(redis.url, redisN, `bench${round}:`));
      log(`redis round ${round + 1}/${runs}`);
    }
    const direct = await bigFile(redis.url, megabytes, false);
    log(`${megabytes} MB through batches.fetch`);
    const http = await bigFile(redis.url, megabytes, true);
    log(`${megabytes} MB through Node's HTTP server`);
    return report({ n, redisN, megabytes, runs, plain, memory, shared, direct, http });
  } finally {
    await redis.stop();
  }
};

interface Measured {
  readonly n: number;
  readonly redisN: number;
  readonly megabytes: number;
  readonly runs: number;
  readonly plain: number[];
  readonly memory: number[];
  readonly shared: Array<{ seconds: number; commandsPerItem: number }>;
  readonly direct: Awaited<ReturnType<typeof bigFile>>;
  readonly http: Awaited<ReturnType<typeof bigFile>>;
}

function report(m: Measured) {
  const plainRate = m.n / median(m.plain);
  const memoryRate = m.n / median(m.memory);
  const overheadUs = median(m.memory.map((seconds, i) => ((seconds - m.plain[i]!) / m.n) * 1e6));
  const sharedRate = median(m.shared.map((r) => m.redisN / r.seconds));
  const commands = median(m.shared.map((r) => r.commandsPerItem));
  const fileRow = (name: string, f: Measured["direct"]) => [
    name,
    num(f.bytes / 1e6),
    num(f.lines),
    num(f.rssMb),
    num(f.liveMb, 1),
  ];
  return {
    part: "batches",
    title: "Batch jobs: items per second, Redis commands per item, memory of a big file",
    method: [
      `An upstream that answers at once. In memory: a batch of ${num(m.n)} items through createBatches (maxInFlight 64, scheduler maxConcurrency 16) against the same ${num(m.n)} calls through plain scheduler.run() in the same round; one warm-up round, then ${m.runs}.`,
      `Redis: three batch instances in this process, each with its own scheduler and connection, sharing one redis-server; a batch of ${num(m.redisN)} items created on one; Redis commands are the INFO commandstats delta over the whole batch, divided by the items.`,
      `Big file: a generated ${m.megabytes} MB JSONL upload (about 4 KB per line) through batches.fetch, then made a batch (Redis store). Live memory is heapUsed + arrayBuffers right after a full collection, sampled every 25 ms, above the level before.`,
    ],
    tables: [
      {
        title: "Items per second (median)",
        columns: ["path", "items", "items/s", "vs plain run()"],
        rows: [
          ["plain scheduler.run()", num(m.n), num(plainRate), "1.00x"],
          ["batches, memory store", num(m.n), num(memoryRate), `${(memoryRate / plainRate).toFixed(2)}x`],
          [
            "batches, 3 instances on Redis",
            num(m.redisN),
            num(sharedRate),
            `${(sharedRate / plainRate).toFixed(3)}x`,
          ],
        ],
        note: `Overhead of the batch layer per item, in memory: ${num(overheadUs, 1)} µs (median of per-round differences). Redis commands per item: ${commands.toFixed(2)}.`,
      },
      {
        title: `A ${m.megabytes} MB input file`,
        columns: ["path", "MB", "lines", "peak RSS (MB)", "peak live (MB)"],
        rows: [
          fileRow("batches.fetch (web Request)", m.direct),
          fileRow("Node HTTP server (nodeListener)", m.http),
        ],
      },
    ],
    goals: [
      {
        name: "Redis commands per item",
        target: "≤ 10",
        measured: commands.toFixed(2),
        holds: commands <= 10,
      },
      {
        name: `live memory for a ${m.megabytes} MB file`,
        target: "< 64 MB",
        measured: `${num(m.direct.liveMb, 1)} MB`,
        holds: m.direct.liveMb < 64,
      },
    ],
    notes: [],
    raw: m,
  };
}
