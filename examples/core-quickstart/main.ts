// A batch flood and a trickle of chat requests share 4 upstream slots. The same load runs through a
// plain FIFO limit and through llm-scheduler, and the chat users' waits are compared.
import { createScheduler, type Scheduler } from "@llm-scheduler/core";

const SLOTS = 4;
const BATCH_ITEMS = 120;
const BATCH_MS = 40; // a long generation
const CHATS = 30;
const CHAT_MS = 5; // a short answer
const CHAT_EVERY_MS = 15;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/** FIFO: one queue, a concurrency limit; what many gateways do today. */
function fifo(limit: number) {
  let running = 0;
  const queue: Array<() => void> = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      queue.shift()?.();
    }
  };
}

async function replay(
  submit: (priority: "interactive" | "batch", work: () => Promise<void>) => Promise<void>,
) {
  const waits: number[] = [];
  const batch = Array.from({ length: BATCH_ITEMS }, (_, i) =>
    submit("batch", () => sleep(BATCH_MS)).catch(() => console.error(`batch item ${i} failed`)),
  );
  const chats: Promise<void>[] = [];
  for (let i = 0; i < CHATS; i++) {
    await sleep(CHAT_EVERY_MS);
    const queuedAt = performance.now();
    chats.push(
      submit("interactive", async () => {
        waits.push(performance.now() - queuedAt);
        await sleep(CHAT_MS);
      }),
    );
  }
  await Promise.all([...chats, ...batch]);
  waits.sort((a, b) => a - b);
  return { p50: waits[Math.floor(waits.length * 0.5)]!, p95: waits[Math.ceil(waits.length * 0.95) - 1]! };
}

function scheduled(scheduler: Scheduler) {
  return (priority: "interactive" | "batch", work: () => Promise<void>) =>
    scheduler.run(() => work(), { priority, tenant: priority === "batch" ? "indexer" : "chat" });
}

const limit = fifo(SLOTS);
const plain = await replay((_priority, work) => limit(work));
const scheduler = createScheduler({ maxConcurrency: SLOTS });
const smart = await replay(scheduled(scheduler));
await scheduler.close();

const row = (name: string, r: { p50: number; p95: number }) =>
  `${name.padEnd(16)} ${r.p50.toFixed(0).padStart(8)} ms ${r.p95.toFixed(0).padStart(8)} ms`;
console.log(`chat queue wait with ${BATCH_ITEMS} batch items flooding ${SLOTS} slots\n`);
console.log(`${"".padEnd(16)} ${"p50".padStart(11)} ${"p95".padStart(11)}`);
console.log(row("FIFO", plain));
console.log(row("llm-scheduler", smart));
console.log(
  `\nchat p95 wait is ${(plain.p95 / Math.max(1, smart.p95)).toFixed(0)}x lower with llm-scheduler`,
);
