import { Readable } from "node:stream";
import { createScheduler } from "@llm-scheduler/core";
import { schedulerMiddleware } from "@llm-scheduler/express";
import express from "express";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startCountingUpstream } from "./counting-upstream.js";
import { until } from "./probe.js";
import { serveListener } from "./serve.js";

/** The handler of packages/express/README.md, as a user copies it (only `upstream` and the scheduler given). */
function readmeApp(upstream: string, scheduler: ReturnType<typeof createScheduler>) {
  const app = express();
  app.set("env", "development"); // as a user runs it: Express's error handler logs what reaches it
  app.post("/v1/chat/completions", schedulerMiddleware({ scheduler }), async (req, res) => {
    const { signal } = req.llmScheduler!; // aborts if the client leaves, on run timeout, on close
    try {
      const answer = await fetch(`${upstream}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: Readable.toWeb(req) as ReadableStream<Uint8Array>, // the middleware never reads the body
        duplex: "half",
        signal,
      } as RequestInit);
      res.status(answer.status).type(answer.headers.get("content-type") ?? "application/json");
      if (answer.body) for await (const chunk of answer.body) res.write(chunk); // SSE passes through as it comes
    } catch {
      // A client that left (or a run timeout) aborts the fetch: that is normal, not an error to log.
      if (!signal.aborted && !res.headersSent) {
        res
          .status(502)
          .json({ error: { message: "The upstream could not be reached", type: "upstream_error" } });
        return;
      }
    }
    res.end(); // also after an abort: the slot is released once your work has ended and the response is over
  });
  return app;
}

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
