import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Scheduler } from "@llm-scheduler/core";
import type { BatchesLike, BatchLike, BatchResultLike } from "@llm-scheduler/dashboard";

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
