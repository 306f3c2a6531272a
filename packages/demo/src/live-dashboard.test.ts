import { PassThrough } from "node:stream";
import { createScheduler } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { startLiveDashboard, untilDismissed } from "./live-dashboard.js";

describe("the live dashboard", () => {
  it("serves a scheduler's page and snapshot on its own port until closed", async () => {
    const scheduler = createScheduler({ maxConcurrency: 3 });
    const dashboard = await startLiveDashboard(scheduler);
    try {
      expect(dashboard.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/dashboard$/);
      const page = await fetch(dashboard.url);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      const snapshot = await (await fetch(`${dashboard.url}/api/snapshot`)).json();
      expect(snapshot).toMatchObject({ maxConcurrency: 3, controls: false });
    } finally {
      await dashboard.close();
      await scheduler.close();
    }
    await expect(fetch(dashboard.url)).rejects.toThrow();
  });

  it("is held until Enter, the end of input or Ctrl-C", async () => {
    for (const dismiss of [
      (input: PassThrough) => input.write("\n"),
      (input: PassThrough) => input.end(),
      () => process.emit("SIGINT"),
    ]) {
      const input = new PassThrough();
      let done = false;
      const held = untilDismissed(input).then(() => {
        done = true;
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(done).toBe(false);
      dismiss(input);
      await held;
      expect(process.listenerCount("SIGINT")).toBe(0);
    }
  });
});
