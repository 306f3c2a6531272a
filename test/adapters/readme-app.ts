import { Readable } from "node:stream";
import type { Scheduler } from "@llm-scheduler/core";
import { schedulerMiddleware } from "@llm-scheduler/express";
import express from "express";

/** The handler of packages/express/README.md, as a user copies it (only `upstream` and the scheduler given). */
export function readmeApp(upstream: string, scheduler: Scheduler): express.Express {
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
