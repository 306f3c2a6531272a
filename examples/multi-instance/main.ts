// Two gateway processes and one Redis in front of one simulated LLM server. Each gateway is configured
// with maxConcurrency 4: without Redis they would send up to 8 requests at once; sharing a RedisStore
// they send at most 4 together, and interactive requests arriving at gateway B overtake the batch
// flood queued at gateway A.
//
//   pnpm --filter @llm-scheduler/example-multi-instance start    (starts its own redis-server;
//   REDIS_URL=redis://host:6379 uses yours; --keep leaves everything running for curl)
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { newKey } from "@llm-scheduler/adapter-kit/env-gateway";
import { startLocalRedis } from "@llm-scheduler/redis/local-server";
import { startUpstream } from "@llm-scheduler/upstream-sim";

const GLOBAL_LIMIT = 4;
/** Keys made for this run: the gateways refuse every other key, and serve their admin paths to ADMIN_KEY only. */
const API_KEY = newKey("sk-demo-");
const ADMIN_KEY = newKey("sk-admin-");
const admin = { headers: { authorization: `Bearer ${ADMIN_KEY}` } };
const BATCH = 40;
const CHATS = 12;

async function startRedis(): Promise<{ url: string; stop?: () => Promise<void> }> {
  if (process.env.REDIS_URL !== undefined) return { url: process.env.REDIS_URL };
  return startLocalRedis();
}

async function startGateway(
  name: string,
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const script = fileURLToPath(new URL("./gateway.ts", import.meta.url));
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", script], {
    env: { ...process.env, ...env, NAME: name, MAX_CONCURRENCY: String(GLOBAL_LIMIT) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  for await (const chunk of child.stdout!) {
    const match = /READY (\d+)/.exec(String(chunk));
    if (match !== null) {
      child.stdout!.resume();
      return { url: `http://127.0.0.1:${match[1]}`, child };
    }
  }
  throw new Error(`${name} did not start`);
}

/** One chat completion through a gateway; resolves with the time it waited in the queue (ms). */
async function complete(gateway: string, priority: string, maxTokens: number): Promise<number> {
  const response = await fetch(`${gateway}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${API_KEY}`,
      "content-type": "application/json",
      "x-priority": priority,
    },
    body: JSON.stringify({
      model: "sim-model",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: maxTokens,
    }),
  });
  await response.text();
  if (response.status !== 200) throw new Error(`${priority} request answered ${response.status}`);
  return Number(/queue;dur=([\d.]+)/.exec(response.headers.get("server-timing") ?? "")?.[1] ?? Number.NaN);
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** What a gateway's store went through (its GET /status). */
interface StoreStatus {
  readonly store: string;
  readonly fallbacks: number;
  readonly errors: number;
  readonly lastError: string;
}

async function storeStatus(gateway: string): Promise<StoreStatus> {
  return (await (await fetch(`${gateway}/status`, admin)).json()) as StoreStatus;
}

/** A gateway's settled requests, summed from its `/metrics` (Prometheus text format). */
async function countedByPrometheus(gateway: string): Promise<number> {
  const text = await (await fetch(`${gateway}/metrics`, admin)).text();
  const counts = [...text.matchAll(/^llm_scheduler_requests_total\{[^}]*\} (\d+)$/gm)];
  return counts.reduce((sum, match) => sum + Number(match[1]), 0);
}

/** Says once, for both gateways, that Redis could not be reached; true when that happened. */
function reportFallback(redisUrl: string, statuses: Record<string, StoreStatus>): boolean {
  const fell = Object.entries(statuses).filter(([, s]) => s.fallbacks > 0 || s.store !== "connected");
  if (fell.length === 0) return false;
  const cause = fell[0]![1].lastError || fell[0]![1].store;
  console.log(`\nRedis at ${redisUrl} was unreachable (${cause}).`);
  for (const [name, s] of fell) {
    console.log(
      `  gateway ${name}: fell back to local mode ${s.fallbacks} time(s), ${s.errors} store errors`,
    );
  }
  console.log(
    `  Each gateway ran alone under ${GLOBAL_LIMIT / 2} of the ${GLOBAL_LIMIT} slots: no shared queue, so` +
      " interactive requests at B could not overtake the batch flood at A.",
  );
  return true;
}

const redis = await startRedis();
const upstream = await startUpstream({ port: 0, parallel: 16, ttftMs: 20, tokenMs: 4 });
const env = {
  REDIS_URL: redis.url,
  UPSTREAM_URL: upstream.url,
  API_KEYS: `${API_KEY}:demo:interactive`,
  ADMIN_KEY,
};
const [a, b] = await Promise.all([startGateway("A", env), startGateway("B", env)]);
console.log(`Redis ${redis.url}, upstream ${upstream.url}, gateway A ${a.url}, gateway B ${b.url}`);
console.log(`Live dashboards: ${a.url}/dashboard and ${b.url}/dashboard (queues and slots are global)`);
console.log(`  admin key for them (the browser asks: any user name, this as the password): ${ADMIN_KEY}`);

try {
  const batch = Array.from({ length: BATCH }, () => complete(a.url, "batch", 40));
  await new Promise((resolve) => setTimeout(resolve, 200)); // the flood is queued at gateway A
  const chats: Array<Promise<number>> = [];
  for (let i = 0; i < CHATS; i++) {
    chats.push(complete(b.url, "interactive", 8));
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  const [batchWaits, chatWaits] = await Promise.all([Promise.all(batch), Promise.all(chats)]);
  const stats = upstream.stats();
  const statuses = { A: await storeStatus(a.url), B: await storeStatus(b.url) };
  const fellBack = reportFallback(redis.url, statuses);
  console.log(`\nUpstream: ${stats.served} served, at most ${stats.maxInFlightSeen} in flight at once`);
  if (fellBack) {
    console.log("Not the multi-instance demo: start Redis (or leave REDIS_URL unset) and run it again.");
    process.exitCode = 1;
  } else {
    console.log(`  (each gateway allows ${GLOBAL_LIMIT}; together they never exceeded ${GLOBAL_LIMIT})`);
    console.log(`Batch at gateway A:       median queue wait ${median(batchWaits).toFixed(0)} ms`);
    console.log(`Interactive at gateway B: median queue wait ${median(chatWaits).toFixed(0)} ms`);
    const counted = [await countedByPrometheus(a.url), await countedByPrometheus(b.url)];
    console.log(
      `Prometheus (GET /metrics): A counted ${counted[0]}, B counted ${counted[1]}, ` +
        `sum ${counted[0]! + counted[1]!} requests`,
    );
  }
  if (stats.maxInFlightSeen > GLOBAL_LIMIT) throw new Error("the global limit was exceeded");
  if (process.argv.includes("--keep")) {
    console.log(`\nRunning; try: curl -s -H 'authorization: Bearer ${API_KEY}' -H 'x-priority: batch' \\`);
    console.log("  -H 'content-type: application/json' \\");
    console.log(
      `  -d '{"messages":[{"role":"user","content":"Hi"}]}' ${a.url}/v1/chat/completions   (Ctrl-C stops)`,
    );
    await new Promise((resolve) => process.once("SIGINT", resolve));
  }
} finally {
  for (const gateway of [a, b]) {
    const exited = once(gateway.child, "exit");
    gateway.child.kill("SIGTERM");
    await exited;
  }
  await upstream.close();
  await redis.stop?.();
}
