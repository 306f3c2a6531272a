import { createScheduler } from "@llm-scheduler/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startCountingUpstream } from "./counting-upstream.js";
import { until } from "./probe.js";
import { readmeApp } from "./readme-app.js";
import { serveListener } from "./serve.js";

describe("the Express README's handler", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const close of closers.splice(0)) await close();
  });

  it("logs nothing when clients disconnect mid-stream, and frees every slot at once", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const upstream = await startCountingUpstream();
    const scheduler = createScheduler({ maxConcurrency: 2 });
    const gateway = await serveListener(readmeApp(upstream.url, scheduler));
    closers.push(gateway.close, upstream.close, () => scheduler.close({ timeoutMs: 100 }));
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        const client = new AbortController();
        const response = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: "POST",
          body: "{}",
          signal: client.signal,
        });
        await response.body!.getReader().read();
        client.abort();
      }),
    );
    await until(
      () => scheduler.metrics().running === 0,
      "every slot to be freed (well before the grace)",
      3_000,
    );
    expect(scheduler.metrics()).toMatchObject({ started: 6, queued: 0 });
    expect(upstream.maxOpen).toBeLessThanOrEqual(2);
    expect(logged).not.toHaveBeenCalled();
  });
});
