import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { type BatchesLike, createDashboard } from "./index.js";

function fakeBatches(overrides: Partial<BatchesLike> = {}) {
  const calls: string[] = [];
  const batch = {
    id: "b/1",
    status: "in_progress",
    requestCounts: { total: 3, completed: 1, failed: 1 },
    metadata: { note: "private" },
    input: { messages: ["secret body"] },
  };
  const batches: BatchesLike = {
    list: () => [batch],
    get: (id) => (id === batch.id ? batch : undefined),
    cancel: (id) => void calls.push(`cancel ${id}`),
    retryFailed: async (id) => void calls.push(`retry ${id}`),
    *results() {
      yield { customId: "ok", error: null, attempts: 1 };
      yield {
        customId: "bad",
        error: { code: "upstream_500", message: "x".repeat(1_000) },
        attempts: [{}, {}],
      };
    },
    ...overrides,
  };
  return { batches, calls };
}

function post(path: string) {
  return new Request(`http://x/dashboard${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
  });
}

describe("batches", () => {
  it("shows ids, tenants, status and counts only, never other fields of a batch", async () => {
    const { batches } = fakeBatches();
    const dashboard = createDashboard({ scheduler: createScheduler(), batches, access: "open" });
    const text = await (await dashboard(new Request("http://x/dashboard/api/snapshot"))).text();
    expect(JSON.parse(text).batches).toEqual([
      { id: "b/1", status: "in_progress", tenant: null, total: 3, completed: 1, failed: 1 },
    ]);
    expect(text).not.toContain("secret body");
    expect(text).not.toContain("private");
    dashboard.close();
  });

  it("lists failed items with their latest error (shortened) and attempts", async () => {
    const { batches } = fakeBatches();
    const dashboard = createDashboard({ scheduler: createScheduler(), batches, access: "open" });
    const response = await dashboard(new Request("http://x/dashboard/api/batches/b%2F1/failed"));
    const { data } = await response.json();
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ customId: "bad", attempts: 2 });
    expect(data[0].error).toMatch(/^upstream_500: x{286}…$/);
    const malformed = await dashboard(new Request("http://x/dashboard/api/batches/%E0%A4%A/failed"));
    expect(malformed.status).toBe(400);
    dashboard.close();
  });

  it("cancels and retries when authorized; 404 for an unknown batch, 409 when the action fails", async () => {
    const { batches, calls } = fakeBatches();
    const dashboard = createDashboard({ scheduler: createScheduler(), batches, authorize: () => true });
    expect((await dashboard(post("/api/batches/b%2F1/cancel"))).status).toBe(200);
    const retried = await dashboard(post("/api/batches/b%2F1/retry"));
    expect((await retried.json()).batch.id).toBe("b/1");
    expect(calls).toEqual(["cancel b/1", "retry b/1"]);
    const missing = await dashboard(post("/api/batches/nope/cancel"));
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ code: "not_found", param: "id" });
    dashboard.close();
    const failing = fakeBatches({
      cancel: () => Promise.reject(new Error("password=hunter2 leaked in a message")),
    });
    const strict = createDashboard({
      scheduler: createScheduler(),
      batches: failing.batches,
      authorize: () => true,
    });
    const conflict = await strict(post("/api/batches/b%2F1/cancel"));
    expect(conflict.status).toBe(409);
    expect(await conflict.text()).not.toContain("hunter2");
    strict.close();
  });

  it("answers 404 for batch routes without batches, and shows none when list() throws", async () => {
    const readOnly = createDashboard({ scheduler: createScheduler(), authorize: () => true });
    expect((await readOnly(post("/api/batches/b/cancel"))).status).toBe(404);
    expect((await readOnly(new Request("http://x/dashboard/api/batches/b/failed"))).status).toBe(404);
    readOnly.close();
    const { batches } = fakeBatches({
      list: () => {
        throw new Error("down");
      },
    });
    const broken = createDashboard({ scheduler: createScheduler(), batches, access: "open" });
    const body = await (await broken(new Request("http://x/dashboard/api/snapshot"))).json();
    expect(body.batches).toEqual([]);
    broken.close();
  });

  it("reads the list once per interval however many ask, and again at once on progress", async () => {
    const clock = new VirtualClock(0);
    const listeners = new Map<string, () => void>();
    let lists = 0;
    const { batches } = fakeBatches({
      list: () => {
        lists++;
        return [];
      },
      on: (name, listener) => {
        listeners.set(name, () => listener({}));
        return () => listeners.delete(name);
      },
    });
    const dashboard = createDashboard({
      scheduler: createScheduler({ clock }),
      batches,
      access: "open",
      intervalMs: 1_000,
    });
    const snapshot = () => dashboard(new Request("http://x/dashboard/api/snapshot"));
    await Promise.all([snapshot(), snapshot(), snapshot()]);
    await snapshot();
    expect(lists).toBe(1);
    clock.advance(1_000);
    await snapshot();
    expect(lists).toBe(2);
    listeners.get("progress")!();
    await snapshot();
    expect(lists).toBe(3);
    listeners.get("done")!();
    await snapshot();
    expect(lists).toBe(4);
    dashboard.close();
    expect(listeners.size).toBe(0);
  });
});
