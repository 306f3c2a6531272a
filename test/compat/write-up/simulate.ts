// simulate.ts: the write-up's section 7 ("功能测试与效果验证"), reconstructed from its usage; only the
// import path differs from the article (`./scheduler` -> `@llm-scheduler/core/compat`).
import { LlmScheduler } from "@llm-scheduler/core/compat";

function randomRun(minMs: number, maxMs: number) {
  const duration = Math.floor(Math.random() * (maxMs - minMs + 1)) + minMs;
  return new Promise<void>((resolve) => {
    setTimeout(resolve, duration);
  });
}

async function main() {
  const scheduler = new LlmScheduler({
    maxConcurrency: 4,
    interactiveWeight: 4,
    batchWeight: 1,
    interactiveQueueTimeoutMs: 10_000,
    batchQueueTimeoutMs: 120_000,
  });

  const interactiveWaitTimes: number[] = [];

  for (let i = 0; i < 60; i += 1) {
    scheduler.submit(`batch-${i}`, "batch", () => randomRun(800, 1500)).catch(() => {});
  }

  for (let i = 0; i < 20; i += 1) {
    const start = Date.now();
    scheduler
      .submit(`interactive-${i}`, "interactive", () => randomRun(200, 500))
      .then(() => {
        interactiveWaitTimes.push(Date.now() - start);
      })
      .catch(() => {});
  }

  setTimeout(() => {
    const sorted = interactiveWaitTimes.slice().sort((a, b) => a - b);
    const p50 = sorted[Math.floor(sorted.length * 0.5)] ?? 0;
    const p95 = sorted[Math.floor(sorted.length * 0.95)] ?? 0;
    console.log("interactive tasks:", sorted.length);
    console.log("p50 wait time:", p50, "ms");
    console.log("p95 wait time:", p95, "ms");
    process.exit(0);
  }, 30_000);
}

main();
