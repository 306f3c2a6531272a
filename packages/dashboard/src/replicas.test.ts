import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import {
  createDashboard,
  type Dashboard,
  type DashboardOptions,
  type DashboardSnapshot,
  type ReplicaLike,
} from "./index.js";
import { shownUrl } from "./replicas.js";

const XSS = "<img src=x onerror=alert(1)>";
const SECRET = "hunter2";
const open: Dashboard[] = [];

afterEach(() => {
  for (const dashboard of open.splice(0)) dashboard.close();
});

/** A pool of three replicas of the shape `@llm-scheduler/pool` reports, changed by the test. */
function fakePool() {
  const rows: ReplicaLike[] = [
    {
      id: "gpu-0",
      url: `http://ops:${SECRET}@10.0.0.1:8000/?api_key=${SECRET}#${SECRET}`,
      limit: 8,
      inFlight: 3,
      healthy: true,
      halfOpen: false,
      engine: { waiting: 2, running: 6, kvCacheUsage: 0.73 },
      sent: 40,
      failedBeforeFirstByte: 1,
      consecutiveFailures: 0,
      ejections: 0,
    },
    {
      id: XSS,
      url: "https://10.0.0.2:8000/v1",
      limit: 8,
      inFlight: 0,
      healthy: false,
      halfOpen: false,
      engine: undefined,
      sent: 12,
      failedBeforeFirstByte: 4,
      consecutiveFailures: 3,
      ejections: 1,
    },
    { id: "gpu-2", url: "not a url", limit: 4, inFlight: 1, healthy: false, halfOpen: true },
  ];
  let throws = false;
  const pool = {
    rows,
    fail: (on: boolean) => {
      throws = on;
    },
    metrics: () => {
      if (throws) throw new Error(`metrics failed for ${SECRET}`);
      return { replicas: rows, waitingForReplica: 2 };
    },
  };
  return pool;
}

function setup(extra: Partial<DashboardOptions> = {}) {
  const clock = new VirtualClock(0);
  const scheduler = createScheduler({ clock, maxConcurrency: 8 });
  const pool = fakePool();
  const dashboard = createDashboard({
    scheduler,
    replicas: pool,
    authorize: (r) => r.headers.get("x-ops") === "yes",
    access: "aggregate",
    intervalMs: 1_000,
    historyMs: 10_000,
    ...extra,
  });
  open.push(dashboard);
  return { clock, scheduler, pool, dashboard };
}

const asOperator = { headers: { "x-ops": "yes" } };

async function snapshotOf(dashboard: Dashboard, init: RequestInit = {}): Promise<DashboardSnapshot> {
  return (await dashboard(new Request("http://x/dashboard/api/snapshot", init))).json();
}

describe("replicas of a pool", () => {
  it("snapshots each replica's health, load, engine signals and counts, and the pool's capacities", async () => {
    const { dashboard } = setup();
    const { pool } = await snapshotOf(dashboard, asOperator);
    expect(pool).toMatchObject({
      capacity: 20,
      healthyCapacity: 8,
      healthyReplicas: 1,
      waitingForReplica: 2,
      total: 3,
    });
    expect(pool?.replicas).toEqual([
      {
        id: "gpu-0",
        url: "http://10.0.0.1:8000",
        health: "healthy",
        limit: 8,
        inFlight: 3,
        engine: { waiting: 2, running: 6, kvCacheUsage: 0.73 },
        sent: 40,
        failedBeforeFirstByte: 1,
        consecutiveFailures: 0,
        ejections: 0,
      },
      expect.objectContaining({ id: XSS, url: "https://10.0.0.2:8000/v1", health: "ejected", engine: null }),
      expect.objectContaining({ id: "gpu-2", url: null, health: "half-open", sent: 0, ejections: 0 }),
    ]);
  });

  it("never sends a replica's credentials, and no URL at all to an aggregate viewer", async () => {
    const { clock, dashboard } = setup();
    clock.advance(3_000);
    const operator = await dashboard(new Request("http://x/dashboard/api/snapshot", asOperator));
    expect(await operator.text()).not.toContain(SECRET);
    for (const path of ["snapshot", "history"]) {
      const text = await (await dashboard(new Request(`http://x/dashboard/api/${path}`))).text();
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain("10.0.0.");
    }
    const aggregate = await snapshotOf(dashboard);
    expect(aggregate.view).toBe("aggregate");
    expect(aggregate.pool?.replicas.map((r) => [r.id, r.url, r.health, r.inFlight])).toEqual([
      ["gpu-0", null, "healthy", 3],
      [XSS, null, "ejected", 0],
      ["gpu-2", null, "half-open", 1],
    ]);
    expect(aggregate.pool?.healthyCapacity).toBe(8);
  });

  it("keeps per-replica in-flight counts and capacities in the history, one sample per interval", async () => {
    const { clock, pool, dashboard } = setup();
    pool.rows[0] = { ...pool.rows[0]!, inFlight: 5 };
    clock.advance(1_000);
    pool.rows[1] = { ...pool.rows[1]!, healthy: true, inFlight: 2 };
    clock.advance(1_000);
    const { data } = (await (
      await dashboard(new Request("http://x/dashboard/api/history", asOperator))
    ).json()) as { data: DashboardSnapshot[] };
    expect(data.map((s) => s.at)).toEqual([0, 1_000, 2_000]);
    expect(data.map((s) => s.pool?.replicas.map((r) => r.inFlight))).toEqual([
      [3, 0, 1],
      [5, 0, 1],
      [5, 2, 1],
    ]);
    expect(data.map((s) => s.pool?.healthyCapacity)).toEqual([8, 8, 16]);
    expect(data.every((s) => s.pool?.replicas[0]?.url === "http://10.0.0.1:8000")).toBe(true);
  });

  it("sends the replicas on the live stream, history first", async () => {
    const { clock, dashboard } = setup();
    clock.advance(1_000);
    const response = await dashboard(new Request("http://x/dashboard/api/events", asOperator));
    const reader = response.body!.getReader();
    let text = "";
    while (!text.includes("event: snapshot")) {
      text += new TextDecoder().decode((await reader.read()).value);
    }
    await reader.cancel();
    const frames = text.split("\n\n").filter((frame) => frame.startsWith("event: "));
    const payload = (name: string) =>
      JSON.parse(frames.find((f) => f.startsWith(`event: ${name}`))!.split("data: ")[1]!);
    expect(payload("history").data).toHaveLength(2);
    expect(payload("history").data[1].pool.replicas[2].health).toBe("half-open");
    expect(payload("snapshot").pool).toMatchObject({ capacity: 20, healthyCapacity: 8 });
    expect(text).not.toContain(SECRET);
  });

  it("gives `pool: null` without replicas, and while the pool's metrics() throws", async () => {
    const { pool, dashboard } = setup();
    pool.fail(true);
    const response = await dashboard(new Request("http://x/dashboard/api/snapshot", asOperator));
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(JSON.parse(text).pool).toBeNull();
    expect(text).not.toContain(SECRET);
    pool.fail(false);
    expect((await snapshotOf(dashboard, asOperator)).pool?.total).toBe(3);
    const { dashboard: plain } = setup({ replicas: undefined });
    expect((await snapshotOf(plain, asOperator)).pool).toBeNull();
  });

  it("counts every replica in the capacities and keeps the first 64 rows; bad rows are skipped", async () => {
    const rows: unknown[] = Array.from({ length: 100 }, (_, i) => ({
      id: `r${i}`,
      limit: 2,
      inFlight: Number.NaN,
      healthy: i % 2 === 0,
    }));
    rows.push(null, "r?");
    const { dashboard } = setup({ replicas: { metrics: () => ({ replicas: rows as ReplicaLike[] }) } });
    const { pool } = await snapshotOf(dashboard, asOperator);
    expect(pool).toMatchObject({ capacity: 200, healthyCapacity: 100, healthyReplicas: 50, total: 100 });
    expect(pool?.replicas).toHaveLength(64);
    expect(pool?.replicas[0]).toMatchObject({ inFlight: 0, engine: null, health: "healthy" });
    expect(pool?.waitingForReplica).toBe(0);
  });

  it("serves the replicas section in the page and its script", async () => {
    const { dashboard } = setup();
    const html = await (await dashboard(new Request("http://x/dashboard"))).text();
    expect(html).toContain('<section id="replicas-section" class="full" hidden>');
    expect(html).toContain('<svg id="chart-replicas"');
    const script = await (await dashboard(new Request("http://x/dashboard/app.js"))).text();
    expect(script).toContain("function renderPool(s)");
    expect(script).toContain("renderPool(s);");
  });

  it("refuses a replicas source without metrics(), and unknown keys such as `pool`", () => {
    const scheduler = createScheduler();
    const bad: unknown[] = [
      { scheduler, access: "open", replicas: {} },
      { scheduler, access: "open", replicas: { metrics: 1 } },
      { scheduler, access: "open", pool: fakePool() },
    ];
    for (const options of bad) {
      expect(() => createDashboard(options as DashboardOptions), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: "INVALID_OPTION" }),
      );
    }
    expect(() =>
      createDashboard({ scheduler, access: "open", replicas: {} } as unknown as DashboardOptions),
    ).toThrow("Expected `replicas` to be a pool of replicas (with `metrics`)");
  });
});

describe("shownUrl", () => {
  it("keeps scheme, host and path; drops user, password, query and fragment", () => {
    expect(shownUrl("http://user:pw@h:8000/v1/?token=t#f")).toBe("http://h:8000/v1/");
    expect(shownUrl("https://h")).toBe("https://h");
    expect(shownUrl("http://[::1]:9000/")).toBe("http://[::1]:9000");
    expect(shownUrl("http://h/a?x=1")).toBe("http://h/a");
  });

  it("shows nothing it cannot parse as http(s), rather than the raw text", () => {
    for (const value of ["user:pw@h:8000", "javascript:alert(1)", "file:///etc/passwd", 42, undefined]) {
      expect(shownUrl(value)).toBeNull();
    }
    expect(shownUrl(`http://h/${"a".repeat(3_000)}`)).toBeNull();
    expect(shownUrl(`http://h/${"a".repeat(500)}`)).toMatch(/^http:\/\/h\/a+…$/);
  });
});
