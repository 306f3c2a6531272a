import { mkdirSync } from "node:fs";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { createDashboard, type Dashboard } from "@llm-scheduler/dashboard";
import { toNodeHandler } from "@llm-scheduler/dashboard/node";
import express from "express";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CHROMIUM_FLAGS,
  chromiumPath,
  createServer,
  DEAD_REPLICA,
  fakeBatches,
  listen,
  startLoad,
  startPool,
  XSS_TENANT,
} from "./fixtures.js";

const SCREENSHOTS = new URL("./screenshots/", import.meta.url);

let browser: Browser;
let scheduler: Scheduler;
/** A scheduler with a wait target and preemption, shown at /adjusting/dashboard (totals only). */
let adjusting: Scheduler;
/** A dashboard with one live stream place, at /limited/dashboard. */
let limited: Dashboard;
let server: { url: string; close: () => Promise<void> };
let stopLoad: () => Promise<void>;
/** A pool of three replicas, shown at /pool/dashboard. */
let pooled: Awaited<ReturnType<typeof startPool>>;
const dashboards: Dashboard[] = [];
const fake = fakeBatches();

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  scheduler = createScheduler({
    maxConcurrency: 4,
    priorities: { interactive: { weight: 5, reserved: 1 }, batch: { weight: 1 } },
  });
  const readOnly = createDashboard({ scheduler, batches: fake.batches, access: "open", intervalMs: 250 });
  const admin = createDashboard({
    scheduler,
    batches: fake.batches,
    intervalMs: 250,
    path: "/admin/dashboard",
    authorize: () => true, // in this test, whoever reaches /admin is an operator
  });
  adjusting = createScheduler({
    maxConcurrency: 1,
    priorities: { interactive: { targetWaitMs: 800, preempts: ["batch"] }, batch: { weight: 1 } },
  });
  const adjustingView = createDashboard({
    scheduler: adjusting,
    access: "aggregate",
    intervalMs: 250,
    path: "/adjusting/dashboard",
  });
  limited = createDashboard({ scheduler, access: "aggregate", maxStreams: 1, path: "/limited/dashboard" });
  pooled = await startPool();
  const poolView = createDashboard({
    scheduler: pooled.pool.scheduler,
    replicas: pooled.pool,
    access: "open",
    intervalMs: 250,
    path: "/pool/dashboard",
  });
  dashboards.push(readOnly, admin, adjustingView, limited, poolView);
  const app = express();
  app.use(toNodeHandler(poolView));
  app.use(toNodeHandler(readOnly));
  app.use(toNodeHandler(admin));
  app.use(toNodeHandler(adjustingView));
  app.use(toNodeHandler(limited));
  server = await listen(createServer(app));
  stopLoad = startLoad(scheduler);
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
});

afterAll(async () => {
  await browser?.close();
  for (const dashboard of dashboards) dashboard.close();
  await server?.close();
  await stopLoad?.();
  await scheduler?.close();
  await adjusting?.close();
  await pooled?.close();
});

/** Opens a page and records console errors, uncaught errors and dialogs (an XSS would open one). */
async function openPage(path: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.goto(`${server.url}${path}`);
  await page.waitForFunction(() => document.getElementById("status")?.textContent === "live");
  return { page, problems };
}

const text = async (page: Page, selector: string) =>
  (await page.locator(selector).first().textContent()) ?? "";
/**
 * A table's rows as their cells' text joined by " | ", read in one step in the page: the dashboard
 * replaces its rows on each refresh, and `innerText` of a row replaced meanwhile loses its tabs.
 */
const rowCells = (page: Page, selector: string) =>
  page
    .locator(selector)
    .evaluateAll((rows) =>
      rows.map((row) =>
        [...(row as HTMLTableRowElement).cells].map((cell) => cell.textContent?.trim()).join(" | "),
      ),
    );

describe("dashboard in a real browser", () => {
  it("loads without console errors and shows numbers that change while a load runs", async () => {
    const { page, problems } = await openPage("/dashboard");
    const before = Number(await text(page, "#total-started"));
    await page.waitForFunction(
      (seen) => Number(document.getElementById("total-started")?.textContent) > seen + 20,
      before,
      { timeout: 20_000 },
    );
    expect(Number(await text(page, "#total-started"))).toBeGreaterThan(before);
    expect(await page.locator("#chart-slots path").count()).toBe(4); // 2 priorities × running, limit
    expect(await page.locator("#chart-queued path").count()).toBe(2);
    expect(await page.locator("#chart-wait path").count()).toBeGreaterThanOrEqual(6);
    expect(await page.locator("#chart-slots text").allTextContents()).toEqual(
      expect.arrayContaining(["slots", "time (s)", "batch running", "interactive limit"]),
    );
    // running and the limit (4) keep their own scale while hundreds queue
    const leave = new AbortController(); // the flood leaves the queue at once when the check is done
    const flood = Array.from({ length: 300 }, () =>
      scheduler.run(async () => {}, { priority: "batch", signal: leave.signal }).catch(() => {}),
    );
    await page.waitForFunction(() => Number(document.getElementById("total-queued")?.textContent) > 100);
    const topTick = (chart: string) =>
      page
        .locator(`${chart} text.tick`)
        .allTextContents()
        .then((ticks) => Math.max(...ticks.map(Number).filter((tick) => Number.isFinite(tick))));
    expect(await topTick("#chart-slots")).toBe(4);
    expect(await topTick("#chart-queued")).toBeGreaterThanOrEqual(100);
    leave.abort();
    await Promise.all(flood);
    expect(await page.locator("#chart-queued text").allTextContents()).toEqual(
      expect.arrayContaining(["tasks", "batch queued", "interactive queued"]),
    );
    expect(await page.locator("#priorities tbody tr").count()).toBe(2);
    // rejections by reason, over time: tasks whose callers gave up while they were queued
    const refusals = setInterval(() => {
      for (let i = 0; i < 3; i++) {
        scheduler.run(async () => {}, { priority: "batch", signal: AbortSignal.abort() }).catch(() => {});
      }
    }, 200);
    try {
      await page.waitForFunction(
        () => document.querySelectorAll("#chart-rejections path").length >= 1,
        undefined,
        { timeout: 20_000 },
      );
    } finally {
      clearInterval(refusals);
    }
    const rejections = await page.locator("#chart-rejections text").allTextContents();
    expect(rejections).toEqual(expect.arrayContaining(["rejected / s", "time (s)"]));
    expect(rejections.some((label) => /^ABORTED \(\d+ since start\)$/.test(label))).toBe(true);
    // the busiest tenants, as lines over time, with axes, unit and legend
    expect(await page.locator("#chart-tenants path").count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator("#chart-tenants text").allTextContents()).toEqual(
      expect.arrayContaining(["tasks", "time (s)", "team-a running + queued"]),
    );
    await page.screenshot({ path: new URL("read-only.png", SCREENSHOTS).pathname, fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a tenant named like an HTML tag as text, and batches with progress and failed items", async () => {
    const { page, problems } = await openPage("/dashboard");
    await page.waitForFunction(
      (name) => [...document.querySelectorAll("#tenants td")].some((td) => td.textContent === name),
      XSS_TENANT,
      { timeout: 20_000 },
    );
    expect(await page.locator("#tenants img, #batches img, #failed-items img").count()).toBe(0);
    expect(await page.locator("#batches progress").getAttribute("max")).toBe("40");
    await page.locator("#batches button", { hasText: "failed items" }).click();
    await page.locator("#failed-items td", { hasText: "upstream_429: rate limited" }).waitFor();
    const rows = await rowCells(page, "#failed-items tbody tr");
    expect(rows).toEqual([
      expect.stringMatching(/q-7 \| upstream_429: rate limited \| 4/),
      expect.stringContaining(XSS_TENANT),
    ]);
    expect(await page.content()).not.toContain("never shown");
    expect(await page.locator("#controls").isHidden()).toBe(true);
    expect(await page.locator("#batches button", { hasText: "cancel" }).count()).toBe(0);
    const refused = await page.evaluate(async () => {
      const response = await fetch("/dashboard/api/limits", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ maxConcurrency: 1 }),
      });
      return { status: response.status, body: await response.json() };
    });
    expect(refused).toEqual({
      status: 403,
      body: { error: expect.objectContaining({ code: "read_only", type: "permission_error" }) },
    });
    expect(scheduler.options.maxConcurrency).toBe(4);
    // the browser logs the refused request it was asked to make, and nothing else
    expect(problems).toEqual([
      "console: Failed to load resource: the server responded with a status of 403 (Forbidden)",
    ]);
    await page.close();
  });

  it("shows wait targets, shares in force and preemptions per priority", async () => {
    let runs = 0;
    const batch = adjusting.run(
      ({ signal }) =>
        new Promise((resolve, reject) => {
          runs++;
          if (runs === 1) signal.addEventListener("abort", () => reject(signal.reason));
          else resolve("done");
        }),
      { priority: "batch" },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await adjusting.run(async () => "chat", { priority: "interactive" });
    await batch;
    const { page, problems } = await openPage("/adjusting/dashboard");
    // opened now, the charts already hold the last seconds: the history came first on the stream
    const segments = await page.locator("#chart-slots path").first().getAttribute("d");
    expect(segments?.split("L").length).toBeGreaterThan(8);
    // totals only: no tenants, no batches, and the page says why
    expect(await page.locator("#tenants-section").isHidden()).toBe(true);
    expect(await page.locator("#batches-section").isHidden()).toBe(true);
    expect(await page.locator("#aggregate-note").isVisible()).toBe(true);
    expect(await page.locator("#priorities th").allTextContents()).toEqual(
      expect.arrayContaining(["weight", "reserved", "wait target", "preempted"]),
    );
    await page.waitForFunction(() => document.getElementById("total-preempted")?.textContent === "1");
    const rows = await rowCells(page, "#priorities tbody tr");
    expect(rows).toEqual([
      expect.stringMatching(/^interactive \| 0 \| 0 \| 1 \| 1 \| 0 \| 800 ms \| 0 \| /),
      expect.stringMatching(/^batch \| 0 \| 0 \| 1 \| 1 \| 0 \| – \| 1 \(\d+\.\d s lost\) \| /),
    ]);
    expect(await text(page, "#total-limit")).toBe("1");
    await page.screenshot({ path: new URL("adjusting.png", SCREENSHOTS).pathname, fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("says why it is not live after a 503 and reconnects on its own once a place is free", async () => {
    const holder = new AbortController();
    const taken = await fetch(`${server.url}/limited/dashboard/api/events`, { signal: holder.signal });
    expect(taken.status).toBe(200);
    const page = await browser.newPage();
    await page.goto(`${server.url}/limited/dashboard`);
    await page.locator("#status", { hasText: "refused (503): Too many live streams" }).waitFor();
    expect(await text(page, "#status")).toMatch(/; reconnecting in \d+ s$/);
    holder.abort(); // the place is free again: the page gets it without a reload
    await page.waitForFunction(() => document.getElementById("status")?.textContent === "live", undefined, {
      timeout: 20_000,
    });
    await page.close();
  });

  it("uses the controls when authorized: a new limit and weight, and a batch cancelled", async () => {
    const { page, problems } = await openPage("/admin/dashboard");
    await page.locator("#controls").waitFor({ state: "visible" });
    await page.locator("#limit-input").fill("6");
    await page.locator('#weight-inputs input[data-priority="batch"]').fill("2");
    await page.locator("#apply-limits").click();
    await page.locator("#control-result", { hasText: "applied" }).waitFor();
    expect(scheduler.options.maxConcurrency).toBe(6);
    expect(scheduler.options.priorityByName.get("batch")?.weight).toBe(2);
    await page.waitForFunction(() => document.getElementById("total-limit")?.textContent === "6");
    await page.locator("#batches button", { hasText: "cancel" }).click();
    await page.locator("#batches td", { hasText: "cancelling" }).waitFor();
    expect(fake.calls).toEqual(["cancel batch_nightly"]);
    expect(problems).toEqual([]);
    await page.locator("#limit-input").fill("0");
    await page.locator("#apply-limits").click();
    await page.locator("#control-result", { hasText: "refused" }).waitFor();
    expect(scheduler.options.maxConcurrency).toBe(6);
    await page.screenshot({ path: new URL("controls.png", SCREENSHOTS).pathname, fullPage: true });
    expect(problems).toEqual([
      "console: Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
    await page.close();
  });

  it("shows one row per replica and marks the ejected ones, with the capacity they took away", async () => {
    // the replica at a closed port is ejected on its first request, which goes on to another
    expect(await pooled.send(6)).toBe(0);
    await pooled.crash();
    expect(await pooled.send(6)).toBe(0); // so is the crashed one
    const { page, problems } = await openPage("/pool/dashboard");
    await page.waitForFunction(
      () => document.querySelectorAll('#replicas tbody tr[data-health="ejected"]').length === 2,
      undefined,
      { timeout: 20_000 },
    );
    const rows = (await rowCells(page, "#replicas tbody tr")).map((row) => row.split(" | "));
    expect(rows.map((cells) => [cells[0], cells[2], cells[3]])).toEqual([
      ["gpu-0", "healthy", "0 / 4"],
      [XSS_TENANT, "ejected", "0 / 4"],
      [DEAD_REPLICA.id, "ejected", "0 / 2"],
    ]);
    expect(rows.map((cells) => cells[1])).toEqual([
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), // the password cut off
    ]);
    expect(rows[0]!.slice(4, 7)).toEqual([
      "0",
      expect.stringMatching(/^\d+$/),
      expect.stringMatching(/^\d+%$/),
    ]);
    // sent, failed before first byte, consecutive failures, ejections of the dead one
    expect(rows[2]!.slice(7)).toEqual([
      expect.stringMatching(/^[1-9]\d*$/),
      expect.stringMatching(/^[1-9]\d*$/),
      "1",
      "1",
    ]);
    expect(await text(page, "#pool-capacity")).toContain(
      "healthy capacity 4 of 10 slots; 1 of 3 replicas healthy (2 out)",
    );
    expect(await text(page, "#total-limit")).toBe("4");
    expect(await page.locator("#replicas img").count()).toBe(0);
    expect(await page.content()).not.toContain(DEAD_REPLICA.password);
    expect(await page.locator("#chart-replicas path").count()).toBe(3);
    expect(await page.locator("#chart-replicas text").allTextContents()).toEqual(
      expect.arrayContaining(["requests", "gpu-0 in flight", `${DEAD_REPLICA.id} in flight (ejected)`]),
    );
    expect(await page.locator("#chart-capacity text").allTextContents()).toEqual(
      expect.arrayContaining(["slots", "capacity (every replica)", "healthy capacity", "running"]),
    );
    await page.screenshot({ path: new URL("replicas.png", SCREENSHOTS).pathname, fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});
