import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Scheduler } from "@llm-scheduler/core";
import type { BatchesLike, BatchLike, BatchResultLike } from "@llm-scheduler/dashboard";
import { createPool } from "@llm-scheduler/pool";
import { startReplicas } from "@llm-scheduler/upstream-sim";

export const XSS_TENANT = "<img src=x onerror=alert(1)>";

/** Debian's chromium, as `.ci/run` installs it; a clear failure (never a skip) when it is missing. */
export function chromiumPath(): string {
  const path = "/usr/bin/chromium";
  if (!existsSync(path)) {
    throw new Error("The browser test needs Chromium: apt-get update && apt-get install -y chromium");
  }
  return path;
}

export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/**
 * Batches of the shape the dashboard reads, in memory, recording the calls it receives. `tenant` names
 * the batch's tenant and one failed item (the tests give a name made to look like markup).
 */
export function fakeBatches(tenant = XSS_TENANT) {
  const calls: string[] = [];
  const batch = {
    id: "batch_nightly",
    status: "in_progress",
    tenant,
    requestCounts: { total: 40, completed: 25, failed: 2 },
    metadata: { secret: "never shown" },
  };
  const results: BatchResultLike[] = [
    { customId: "q-7", error: { code: "upstream_429", message: "rate limited" }, attempts: 4 },
    { customId: tenant === XSS_TENANT ? XSS_TENANT : "q-19", error: "connection reset", attempts: [1, 2] },
  ];
  const batches: BatchesLike = {
    list: async () => ({ data: [batch] }),
    get: async (id: string): Promise<BatchLike | null> => (id === batch.id ? batch : null),
    cancel: async (id: string) => {
      calls.push(`cancel ${id}`);
      batch.status = "cancelling";
    },
    retryFailed: async (id: string) => {
      calls.push(`retry ${id}`);
    },
    results: async function* () {
      yield { customId: "q-1", error: null, attempts: 1 };
      yield* results;
    },
  };
  return { batches, calls, batch };
}

/**
 * Keeps a load on the scheduler until stopped: short tasks from three tenants (one named like an HTML
 * tag) in both priorities, more than the limit, so queues, waits and tenants all move.
 */
export function startLoad(scheduler: Scheduler): () => Promise<void> {
  let running = true;
  const loops: Promise<void>[] = [];
  const tenants = ["team-a", "team-b", XSS_TENANT];
  for (let i = 0; i < 12; i++) {
    const priority = i % 3 === 0 ? "interactive" : "batch";
    const tenant = tenants[i % tenants.length]!;
    loops.push(
      (async () => {
        while (running) {
          const ms = 20 + ((i * 37) % 80);
          await scheduler
            .run(() => new Promise((done) => setTimeout(done, ms)), { priority, tenant })
            .catch(() => {});
        }
      })(),
    );
  }
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

/** Listens on 127.0.0.1, port 0; returns the base URL and a closer. */
export async function listen(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export { createServer };

/** What the replica whose URL carries a password is called in the pool, and that password. */
export const DEAD_REPLICA = { id: "dead-with-password", password: "s3cret-never-shown" };

/**
 * A pool of three replicas for the dashboard: two simulated vLLMs (one named like an HTML tag, crashed
 * by `crash()`), and one whose URL carries a password and points at a closed port. One connection
 * error ejects a replica for a minute, so an ejection stays on screen while the test looks.
 */
export async function startPool() {
  const sims = await startReplicas(2, { parallel: 4, ttftMs: 20, tokenMs: 5, prefillMsPerToken: 0 });
  const closed = await listen(createServer());
  const deadUrl = closed.url.replace("http://", `http://ops:${DEAD_REPLICA.password}@`);
  await closed.close(); // nothing listens there any more: connections are refused
  const pool = createPool({
    replicas: [
      { id: "gpu-0", url: sims[0]!.url, maxConcurrency: 4 },
      { id: XSS_TENANT, url: sims[1]!.url, maxConcurrency: 4 },
      { id: DEAD_REPLICA.id, url: deadUrl, maxConcurrency: 2 },
    ],
    routing: "round-robin",
    health: { failures: 1, intervalMs: 0, ejectMs: 60_000, maxEjectMs: 60_000 },
    signals: { intervalMs: 250 },
  });
  /** Sends `count` chat completions through the pool, `parallel` at a time; failures are counted. */
  const send = async (count: number, parallel = 4): Promise<number> => {
    let failed = 0;
    let next = 0;
    const worker = async () => {
      while (next++ < count) {
        const body = JSON.stringify({
          model: "sim-model",
          messages: [{ role: "user", content: `question ${next}` }],
          max_tokens: 8,
        });
        const response = await pool
          .fetch("/v1/chat/completions", { method: "POST", headers: JSON_HEADERS, body })
          .catch(() => undefined);
        if (response?.status !== 200) failed += 1;
        await response?.text();
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    return failed;
  };
  return {
    pool,
    send,
    crash: () => sims[1]!.crash(),
    close: async () => {
      await pool.close();
      await Promise.all(sims.map((sim) => sim.close()));
    },
  };
}

const JSON_HEADERS = { "content-type": "application/json" };
