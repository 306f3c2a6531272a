import { createScheduler, type Scheduler, VirtualClock } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import { type BatchesLike, createDashboard, type Dashboard, type DashboardOptions } from "./index.js";

/** A tenant id such as a gateway derives from an API key: it must never reach an anonymous viewer. */
const TENANT = "key-5f1c0ffee9";
const OPERATOR = { "x-operator": "yes" };
const cleanups: Array<() => unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const batches: BatchesLike = {
  list: () => [
    {
      id: "batch_1",
      status: "in_progress",
      tenant: TENANT,
      requestCounts: { total: 2, completed: 0, failed: 1 },
    },
  ],
  get: () => undefined,
  cancel: () => {},
  retryFailed: () => {},
  *results() {
    yield { customId: `${TENANT}-item`, error: `quota of ${TENANT} exceeded`, attempts: 1 };
  },
};

/** A scheduler with one task of TENANT running, and a dashboard over it. */
function setup(options: Omit<DashboardOptions, "scheduler">) {
  const clock = new VirtualClock(0);
  const scheduler = createScheduler({ clock, maxConcurrency: 2 });
  const dashboard = createDashboard({ scheduler, batches, ...options });
  let finish = () => {};
  const run = scheduler.run(() => new Promise<void>((done) => (finish = done)), { tenant: TENANT });
  cleanups.push(
    () => run,
    () => finish(),
    () => dashboard.close(),
  );
  return { clock, scheduler, dashboard };
}

const operator = (headers: Headers) => headers.get("x-operator") === "yes";
const get = (dashboard: Dashboard, path: string, headers: Record<string, string> = {}) =>
  dashboard(new Request(`http://x/dashboard${path}`, { headers }));

/** Reads a stream's first `events` events as text, then leaves. */
async function firstEvents(response: Response, events: number): Promise<string> {
  const reader = response.body!.getReader();
  let text = "";
  while ((text.match(/\n\n/g) ?? []).length < events + 1)
    text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  return text;
}

describe("closed by default", () => {
  it("refuses to be made without authorize unless access says what anyone may see", () => {
    const scheduler: Scheduler = createScheduler();
    for (const options of [
      { scheduler },
      { scheduler, access: "none" },
      { scheduler, access: "all" },
    ] as const) {
      expect(() => createDashboard(options as DashboardOptions)).toThrow(
        expect.objectContaining({
          code: "INVALID_OPTION",
          message: expect.stringContaining(
            'Expected `access` to be "aggregate" (totals only) or "open" (tenants and batches to anyone) when no `authorize` is given',
          ),
        }),
      );
    }
    expect(() => createDashboard({ scheduler, authorize: () => true, access: "every" as "open" })).toThrow(
      'Expected `access` to be "none" or "aggregate" or "open", got `every` (string)',
    );
    expect(() =>
      createDashboard({ scheduler, authorize: () => true, maxStreams: 4, maxPublicStreams: 4 }),
    ).toThrow("Expected `maxPublicStreams` to be an integer from 0 to 3");
    expect(() => createDashboard({ scheduler, access: "aggregate", historyMs: 600_001 })).toThrow(
      "Expected `historyMs` to be an integer from 0 to 600000",
    );
  });

  it("serves no tenant, batch or failed item to anyone in the aggregate view, in JSON, history and stream", async () => {
    const { dashboard, clock } = setup({ access: "aggregate", intervalMs: 1_000 });
    clock.advance(3_000); // three history samples
    const snapshot = await get(dashboard, "/api/snapshot");
    const body = await snapshot.clone().json();
    expect(body).toMatchObject({
      view: "aggregate",
      running: 1,
      tenants: [],
      batches: null,
      controls: false,
    });
    const history = await (await get(dashboard, "/api/history")).text();
    const stream = await firstEvents(await get(dashboard, "/api/events"), 2);
    expect(stream).toMatch(/^retry: \d+\n\nevent: history\ndata: \{"data":\[\{.*\]\}\n\nevent: snapshot\n/);
    for (const text of [await snapshot.text(), history, stream]) {
      expect(text).not.toContain(TENANT);
      expect(text).not.toContain("batch_1");
    }
    expect(JSON.parse(history).data.length).toBeGreaterThanOrEqual(3);
    const failed = await get(dashboard, "/api/batches/batch_1/failed");
    expect(failed.status).toBe(403);
    expect(await failed.json()).toEqual({
      error: {
        message: "Batch details are shown to authorized viewers only",
        type: "permission_error",
        code: "not_authorized",
        param: null,
      },
    });
  });

  it("with authorize and no access, shows anonymous requests nothing but the page, and operators everything", async () => {
    const { dashboard } = setup({ authorize: (request) => operator(request.headers) });
    expect((await get(dashboard, "")).status).toBe(200);
    for (const path of ["/api/snapshot", "/api/history", "/api/events", "/api/batches/batch_1/failed"]) {
      const response = await get(dashboard, path);
      expect(response.status, path).toBe(403);
      const text = await response.text();
      expect(text).toContain("not_authorized");
      expect(text).not.toContain(TENANT);
    }
    const full = await (await get(dashboard, "/api/snapshot", OPERATOR)).json();
    expect(full).toMatchObject({
      view: "full",
      controls: true,
      batches: [{ id: "batch_1", tenant: TENANT }],
    });
    expect(full.tenants[0].tenant).toBe(TENANT);
    const failed = await (await get(dashboard, "/api/batches/batch_1/failed", OPERATOR)).json();
    expect(failed.data[0].customId).toBe(`${TENANT}-item`);
  });

  it("with authorize and access aggregate, gives anonymous viewers totals and operators details", async () => {
    const { dashboard } = setup({ authorize: (request) => operator(request.headers), access: "aggregate" });
    const anonymous = await (await get(dashboard, "/api/snapshot")).text();
    expect(JSON.parse(anonymous)).toMatchObject({ view: "aggregate", running: 1, controls: false });
    expect(anonymous).not.toContain(TENANT);
    expect(await firstEvents(await get(dashboard, "/api/events", OPERATOR), 2)).toContain(TENANT);
  });

  it("serves tenants and batches to anyone only when access is open", async () => {
    const { dashboard } = setup({ access: "open" });
    const body = await (await get(dashboard, "/api/snapshot")).json();
    expect(body).toMatchObject({ view: "full", controls: false, tenants: [{ tenant: TENANT }] });
    expect((await get(dashboard, "/api/batches/batch_1/failed")).status).toBe(200);
  });
});

describe("stream places", () => {
  it("keeps places for operators: anonymous streams stop at maxPublicStreams (half by default)", async () => {
    const { dashboard } = setup({
      authorize: (request) => operator(request.headers),
      access: "aggregate",
      maxStreams: 4,
    });
    const open: Response[] = [];
    for (let i = 0; i < 2; i++) open.push(await get(dashboard, "/api/events"));
    expect(open.map((response) => response.status)).toEqual([200, 200]);
    const refused = await get(dashboard, "/api/events");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect((await refused.json()).error.message).toContain("at most 2 for viewers who are not operators");
    for (let i = 0; i < 2; i++) open.push(await get(dashboard, "/api/events", OPERATOR));
    expect(open.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect((await get(dashboard, "/api/events", OPERATOR)).status).toBe(503); // all four taken
    await open[0]!.body!.cancel();
    expect((await get(dashboard, "/api/events", OPERATOR)).status).toBe(200);
    for (const response of open.slice(1)) await response.body!.cancel();
  });
});

describe("history", () => {
  it("keeps one snapshot per interval for historyMs in a ring, oldest first, and stops at close()", async () => {
    const { dashboard, clock } = setup({ access: "aggregate", intervalMs: 1_000, historyMs: 5_000 });
    const timers = clock.pendingTimers;
    clock.advance(20_000);
    const { data } = await (await get(dashboard, "/api/history")).json();
    expect(data.map((snapshot: { at: number }) => snapshot.at)).toEqual([
      16_000, 17_000, 18_000, 19_000, 20_000,
    ]);
    expect(data[0]).toMatchObject({ running: 1, waitsRecorded: false, batches: null });
    dashboard.close();
    expect(clock.pendingTimers).toBe(timers - 1);
  });

  it("is off with historyMs 0: no timer, an empty list", async () => {
    const clock = new VirtualClock(0);
    const scheduler = createScheduler({ clock });
    const before = clock.pendingTimers;
    const dashboard = createDashboard({ scheduler, access: "aggregate", historyMs: 0 });
    cleanups.push(() => dashboard.close());
    expect(clock.pendingTimers).toBe(before);
    clock.advance(5_000);
    expect((await (await get(dashboard, "/api/history")).json()).data).toEqual([]);
  });
});
