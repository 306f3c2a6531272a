// Makes docs/dashboard.png, the picture in the READMEs: a batch flood from three tenants, chat traffic
// from two, a burst of refusals, and a batch with failed items, watched for about 40 seconds in Debian's
// Chromium. Run: pnpm exec tsx --conditions=source test/dashboard/docs-screenshot.ts
import { createScheduler, type TaskOptions } from "@llm-scheduler/core";
import { createDashboard } from "@llm-scheduler/dashboard";
import { toNodeHandler } from "@llm-scheduler/dashboard/node";
import { chromium } from "playwright-core";
import { CHROMIUM_FLAGS, chromiumPath, createServer, fakeBatches, listen } from "./fixtures.js";

const SECONDS = 40;
const OUT = new URL("../../docs/dashboard.png", import.meta.url).pathname;

const scheduler = createScheduler({
  maxConcurrency: 8,
  priorities: {
    interactive: { weight: 5, reserved: 1, queueTimeoutMs: 2_000, maxQueue: 40 },
    batch: { weight: 1, queueTimeoutMs: 5_000, maxQueue: 30 },
  },
});
// Open to whoever reaches this local server: it shows made-up tenants only.
const batches = fakeBatches("nightly-etl").batches;
const dashboard = createDashboard({ scheduler, batches, access: "open", intervalMs: 500 });
const server = await listen(createServer(toNodeHandler(dashboard)));
let running = true;
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * One client: tasks of `ms` milliseconds, one after another, with `gap` ms between them; an impatient
 * one gives up after `patienceMs`.
 */
async function client(options: TaskOptions, ms: number, gap: number, patienceMs?: number): Promise<void> {
  while (running) {
    const signal = patienceMs === undefined ? undefined : AbortSignal.timeout(patienceMs);
    await scheduler.run(() => pause(ms), { ...options, signal }).catch(() => {});
    await pause(gap);
  }
}

const loops: Promise<void>[] = [];
for (const tenant of ["chat-web", "chat-mobile"]) {
  for (let i = 0; i < 3; i++) loops.push(client({ priority: "interactive", tenant }, 150, 250));
}
loops.push(client({ priority: "interactive", tenant: "chat-web" }, 150, 100, 200));
const flood = async () => {
  await pause(8_000); // the batch flood arrives after a calm start
  for (const [tenant, clients] of [
    ["indexer", 20],
    ["evals", 10],
    ["nightly-etl", 8],
  ] as const) {
    for (let i = 0; i < clients; i++) loops.push(client({ priority: "batch", tenant }, 900, 300));
  }
};
void flood();

const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
await page.goto(`${server.url}/dashboard`);
await pause(SECONDS * 1000);
await page.locator("#batches button", { hasText: "failed items" }).click();
await page.locator("#failed-items td", { hasText: "rate limited" }).waitFor();
await page.screenshot({ path: OUT, fullPage: true });
console.log(`wrote ${OUT}`);
running = false;
await browser.close();
dashboard.close();
await server.close();
await Promise.all(loops);
await scheduler.close();
