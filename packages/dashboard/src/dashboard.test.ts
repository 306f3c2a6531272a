import { createScheduler, type Listener, type SchedulerEvents, VirtualClock } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import { createDashboard, type Dashboard, type DashboardOptions } from "./index.js";

const XSS = "<img src=x onerror=alert(1)>";
const open: Dashboard[] = [];

function setup(extra: Partial<DashboardOptions> = {}) {
  const clock = new VirtualClock(1_000);
  const priorities = { interactive: { weight: 5 }, batch: { weight: 1 } };
  const scheduler = createScheduler({ clock, maxConcurrency: 2, priorities });
  const dashboard = createDashboard({ scheduler, access: "open", ...extra });
  open.push(dashboard);
  return { clock, scheduler, dashboard };
}

afterEach(() => {
  for (const dashboard of open.splice(0)) dashboard.close();
});

const get = (dashboard: Dashboard, path: string) => dashboard(new Request(`http://x${path}`));

function post(dashboard: Dashboard, path: string, body: unknown, type = "application/json") {
  return dashboard(
    new Request(`http://x${path}`, {
      method: "POST",
      headers: { "content-type": type },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

describe("routes", () => {
  it("serves the page, its script and stylesheet under the mount path", async () => {
    const { dashboard } = setup();
    const page = await get(dashboard, "/dashboard");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('src="/dashboard/app.js"');
    expect((await get(dashboard, "/dashboard/")).status).toBe(200);
    const script = await get(dashboard, "/dashboard/app.js");
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(await script.text()).toContain("liveFeed({");
    expect((await get(dashboard, "/dashboard/app.css")).headers.get("content-type")).toMatch(/^text\/css/);
  });

  it("answers 404 outside its path and 405 with Allow for a wrong method, as OpenAI-style JSON", async () => {
    const { dashboard } = setup({ path: "/ops/" });
    expect(dashboard.path).toBe("/ops");
    const outside = await get(dashboard, "/dashboardx");
    expect(outside.status).toBe(404);
    expect(await outside.json()).toEqual({
      error: { message: "Not found", type: "invalid_request_error", code: "not_found", param: null },
    });
    expect((await get(dashboard, "/ops/nope")).status).toBe(404);
    const wrong = await post(dashboard, "/ops/api/snapshot", {});
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET");
    expect((await get(dashboard, "/ops/api/limits")).status).toBe(405);
  });

  it("snapshots running, queued, limits, windowed waits and tenants, escaping nothing into markup", async () => {
    const { clock, scheduler, dashboard } = setup();
    await get(dashboard, "/dashboard"); // someone watches from now on
    const finish: Array<() => void> = [];
    const task = () => new Promise<void>((done) => finish.push(done));
    const runs = [1, 2, 3].map(() => scheduler.run(task, { priority: "batch", tenant: XSS }));
    clock.advance(250);
    const body = await (await get(dashboard, "/dashboard/api/snapshot")).json();
    expect(body.running).toBe(2);
    expect(body.queued).toBe(1);
    expect(body.controls).toBe(false);
    expect(body.batches).toBeNull();
    const batch = body.priorities.find((p: { name: string }) => p.name === "batch");
    expect(batch).toMatchObject({ running: 2, queued: 1, limit: 2, weight: 1 });
    expect(batch.waitMs.count).toBe(2);
    expect(body.tenants[0]).toEqual({ tenant: XSS, priority: "batch", running: 2, queued: 1 });
    finish.shift()!();
    await runs[0];
    // the third started when the first finished, after waiting 250 ms
    const after = await (await get(dashboard, "/dashboard/api/snapshot")).json();
    const waits = after.priorities.find((p: { name: string }) => p.name === "batch").waitMs;
    expect(waits).toMatchObject({ count: 3, p50: 0, p99: 250 });
    clock.advance(10_001); // out of the 10 s window
    const later = await (await get(dashboard, "/dashboard/api/snapshot")).json();
    expect(later.priorities.find((p: { name: string }) => p.name === "batch").waitMs.count).toBe(0);
    expect(await (await get(dashboard, "/dashboard")).text()).not.toContain("<img");
    for (const done of finish) done();
    await Promise.all(runs);
  });
});

describe("listening", () => {
  it("listens to the scheduler only while someone watches", async () => {
    const { clock, scheduler, dashboard } = setup();
    const waitCount = async () => {
      const body = await (await get(dashboard, "/dashboard/api/snapshot")).json();
      return body.priorities.find((p: { name: string }) => p.name === "batch").waitMs.count;
    };
    const started: string[] = [];
    const original = scheduler.on.bind(scheduler);
    let listeners = 0;
    scheduler.on = ((name: "started", listener: Listener<SchedulerEvents, "started">) => {
      listeners++;
      const off = original(name, listener);
      return () => {
        listeners--;
        off();
      };
    }) as typeof scheduler.on;
    const quick = () => scheduler.run(async () => started.push("x"), { priority: "batch" });
    await quick(); // nobody watches yet: not recorded
    expect(listeners).toBe(0);
    expect(await waitCount()).toBe(0); // this request starts the watch
    expect(listeners).toBe(1);
    await quick();
    expect(await waitCount()).toBe(1);
    clock.advance(20_001); // idle for twice the window, no stream open: the next start detaches
    await quick();
    expect(listeners).toBe(0);
    expect(started).toHaveLength(3);
  });
});

describe("controls", () => {
  it("refuses every control when read-only, or when authorize says no or throws", async () => {
    const denied = [
      setup(),
      setup({ authorize: () => false }),
      setup({
        authorize: () => {
          throw new Error("boom");
        },
      }),
    ];
    for (const { dashboard, scheduler } of denied) {
      const response = await post(dashboard, "/dashboard/api/limits", { maxConcurrency: 5 });
      expect(response.status).toBe(403);
      expect((await response.json()).error.code).toBe("read_only");
      expect(scheduler.options.maxConcurrency).toBe(2);
    }
  });

  it("changes the limit and weights live when authorized, and the snapshot says controls are on", async () => {
    const { dashboard, scheduler } = setup({ authorize: async (r) => r.headers.get("x-admin") === "yes" });
    const request = new Request("http://x/dashboard/api/limits", {
      method: "POST",
      headers: { "content-type": "application/json", "x-admin": "yes" },
      body: JSON.stringify({ maxConcurrency: 6, weights: { batch: 3 } }),
    });
    const response = await dashboard(request);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ maxConcurrency: 6, weights: { interactive: 5, batch: 3 } });
    expect(scheduler.options.maxConcurrency).toBe(6);
    const snapshot = await dashboard(
      new Request("http://x/dashboard/api/snapshot", { headers: { "x-admin": "yes" } }),
    );
    expect((await snapshot.json()).controls).toBe(true);
  });

  it("validates the body: JSON type only (CSRF), size, syntax, keys and ranges, naming the param", async () => {
    const { dashboard, scheduler } = setup({ authorize: () => true });
    const url = "/dashboard/api/limits";
    const form = await post(dashboard, url, "maxConcurrency=5", "application/x-www-form-urlencoded");
    expect(form.status).toBe(415);
    expect((await post(dashboard, url, "x".repeat(9_000))).status).toBe(413);
    expect((await (await post(dashboard, url, "{nope")).json()).error.code).toBe("invalid_json");
    const cases: Array<[unknown, string | null]> = [
      [{ maxConcurency: 5 }, null],
      [{}, null],
      [[1], null],
      [{ maxConcurrency: 0 }, "maxConcurrency"],
      [{ maxConcurrency: 2.5 }, "maxConcurrency"],
      [{ maxConcurrency: 1e9 }, "maxConcurrency"],
      [{ weights: { batch: -1 } }, "weights.batch"],
      [{ weights: { batch: "2" } }, "weights.batch"],
      [{ weights: { nope: 1 } }, "weights.nope"],
      [{ weights: 3 }, "weights"],
    ];
    for (const [body, param] of cases) {
      const response = await post(dashboard, url, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const { error } = await response.json();
      expect(error).toMatchObject({ type: "invalid_request_error", param });
    }
    const unknown = await (await post(dashboard, url, { maxConcurency: 5 })).json();
    expect(unknown.error.message).toContain("did you mean `maxConcurrency`?");
    expect(scheduler.options.maxConcurrency).toBe(2);
  });
});

describe("options", () => {
  it("rejects unknown keys, a missing scheduler and out-of-range numbers with INVALID_OPTION", () => {
    const scheduler = createScheduler();
    const bad: unknown[] = [
      { scheduler, intervalMS: 5 },
      {},
      { scheduler, path: "/a b" },
      { scheduler, path: "dash" },
      { scheduler, intervalMs: 10 },
      { scheduler, maxStreams: 0 },
      { scheduler, authorize: true },
      { scheduler, batches: { list() {} } },
    ];
    for (const options of bad) {
      expect(() => createDashboard(options as DashboardOptions), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: "INVALID_OPTION" }),
      );
    }
    expect(() => createDashboard({ scheduler, intervalMS: 5 } as DashboardOptions)).toThrow(
      "did you mean `intervalMs`?",
    );
  });
});
