import { type Batches, createBatches } from "@llm-scheduler/batches";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { createDashboard } from "@llm-scheduler/dashboard";
import { collectMetrics } from "@llm-scheduler/prometheus";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real batch layer whose executor fails the items named `bad-*` with a final 400. */
function realBatches(): { scheduler: Scheduler; batches: Batches } {
  const scheduler = createScheduler({ maxConcurrency: 4 });
  const batches = createBatches({
    scheduler,
    pollMs: 20,
    execute: async ({ item }) =>
      item.customId.startsWith("bad")
        ? { status: 400, body: { error: { message: "no such model", type: "invalid_request_error" } } }
        : { status: 200, body: { echo: item.customId } },
  });
  cleanups.push(
    () => scheduler.close(),
    () => batches.close(),
  );
  return { scheduler, batches };
}

const item = (customId: string) => ({ customId, url: "/v1/chat/completions", body: { model: "m" } });

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("a real createBatches() instance in the observers", () => {
  it("collectMetrics(scheduler, { registry, batches }) reports batches and items by status", async () => {
    const { scheduler, batches } = realBatches();
    const registry = new Registry();
    collectMetrics(scheduler, { registry, batches });
    const done = await batches.create({ items: [item("a"), item("b"), item("bad-1")], tenant: "t1" });
    await until(
      () => batches.get(done.id),
      (batch) => batch?.status === "completed",
    );
    const waiting = await batches.create({ items: [item("c")], tenant: "t2" });
    await batches.cancel(waiting.id);
    const text = await registry.metrics();
    expect(text).toContain('llm_scheduler_batches{status="completed"} 1');
    expect(text).toContain('llm_scheduler_batches{status="cancelled"} 1');
    expect(text).toContain('llm_scheduler_batch_items{status="completed"} 2');
    expect(text).toMatch(/llm_scheduler_batch_items\{status="failed"\} [12]\n/); // bad-1, and c if cancelled first
    expect(text).toContain('llm_scheduler_batch_items{status="pending"} 0');
  });

  it("createDashboard({ scheduler, batches }) lists, shows failures, cancels and retries", async () => {
    const { scheduler, batches } = realBatches();
    const dashboard = createDashboard({ scheduler, batches, authorize: () => true });
    cleanups.push(() => dashboard.close());
    const batch = await batches.create({ items: [item("a"), item("bad-1")], tenant: "eval-team" });
    await until(
      () => batches.get(batch.id),
      (found) => found?.status === "completed",
    );
    const snapshot = await (await dashboard(new Request("http://x/dashboard/api/snapshot"))).json();
    expect(snapshot.batches).toEqual([
      { id: batch.id, status: "completed", tenant: "eval-team", total: 2, completed: 1, failed: 1 },
    ]);
    const failed = await dashboard(new Request(`http://x/dashboard/api/batches/${batch.id}/failed`));
    const { data } = await failed.json();
    expect(data).toEqual([{ customId: "bad-1", error: expect.stringMatching(/^http_400: /), attempts: 1 }]);
    const post = (path: string) =>
      dashboard(
        new Request(`http://x/dashboard/api/batches/${batch.id}/${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
        }),
      );
    const retried = await post("retry");
    expect(retried.status).toBe(200);
    expect((await retried.json()).batch.status).toBe("in_progress");
    const after = await until(
      () => batches.get(batch.id),
      (found) => found?.status === "completed",
    );
    expect(after?.requestCounts).toEqual({ total: 2, completed: 1, failed: 1 });
    const open = await batches.create({ items: [item("z")], tenant: "eval-team" });
    const cancelled = await dashboard(
      new Request(`http://x/dashboard/api/batches/${open.id}/cancel`, {
        method: "POST",
        headers: { "content-type": "application/json" },
      }),
    );
    expect([200, 409]).toContain(cancelled.status); // 409 if it had already completed
  });
});
