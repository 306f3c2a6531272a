import { Readable } from "node:stream";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { schedulerMiddleware } from "@llm-scheduler/express";
import { createRandom, startUpstream } from "@llm-scheduler/upstream-sim";
import express from "express";
import type { StartGateway } from "./gateways.js";
import { readmeApp } from "./readme-app.js";
import { serveListener } from "./serve.js";

const ROUTE = "/v1/chat/completions";

/** The Express README's handler (`readme-app.ts`). */
export const startReadmeExpressGateway: StartGateway = (scheduler, upstreamUrl) =>
  serveListener(readmeApp(upstreamUrl, scheduler));

function upstreamCall(upstreamUrl: string, req: express.Request, signal: AbortSignal): Promise<Response> {
  return fetch(`${upstreamUrl}${ROUTE}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
    duplex: "half",
    signal,
  } as RequestInit);
}

/** Where a handler says its work has ended (to time the release of its slot from there). */
type WorkEnded = () => void;

/** An Express handler that pipes the upstream's body into the response (its errors ignored). */
export const startPipeExpressGateway =
  (ended: WorkEnded = () => undefined): StartGateway =>
  (scheduler, upstreamUrl) => {
    const app = express();
    app.post(ROUTE, schedulerMiddleware({ scheduler }), async (req, res) => {
      const upstream = await upstreamCall(upstreamUrl, req, req.llmScheduler!.signal).catch(() => undefined);
      if (upstream === undefined) {
        ended();
        return void res.end();
      }
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "" });
      const body = Readable.fromWeb(upstream.body as never);
      body.on("error", () => undefined); // the client left: the fetch was aborted
      body.on("close", ended);
      body.pipe(res);
    });
    return serveListener(app);
  };

/** An Express handler that lets the aborted fetch throw: Express's error handler takes it. */
export const startThrowingExpressGateway =
  (ended: WorkEnded = () => undefined): StartGateway =>
  (scheduler, upstreamUrl) => {
    const app = express();
    app.set("env", "test"); // Express's error handler logs nothing
    app.post(ROUTE, schedulerMiddleware({ scheduler }), async (req, res) => {
      try {
        const upstream = await upstreamCall(upstreamUrl, req, req.llmScheduler!.signal);
        res.status(upstream.status).type(upstream.headers.get("content-type") ?? "");
        for await (const chunk of upstream.body!) res.write(chunk);
        res.end();
      } finally {
        ended();
      }
    });
    return serveListener(app);
  };

export interface DisconnectRun {
  readonly ms: number;
  readonly requests: number;
  /** Clients that hung up after a random moment. */
  readonly left: number;
  /** Clients that stayed and read a complete stream. */
  readonly served: number;
  /** Clients that stayed but got anything else, by status (or `error`). */
  readonly failed: Readonly<Record<string, number>>;
}

const completion = JSON.stringify({
  messages: [{ role: "user", content: "count" }],
  stream: true,
  max_tokens: 10,
});

/**
 * `requests` streamed completions through the gateway, `clients` at a time; with one chance in two a
 * client hangs up mid-stream (a random moment, seeded, after the response's head has come), otherwise
 * it reads its stream to the end. The upstream
 * (the simulator, 8 sequences) and the scheduler (8 slots, the default `abortGraceMs` of 5 s) are the
 * gateway's own; the run takes as long as slots are held after their handler's work has ended.
 */
export async function runDisconnects(
  startGateway: StartGateway,
  { requests, clients, seed }: { readonly requests: number; readonly clients: number; readonly seed: number },
): Promise<DisconnectRun & { readonly scheduler: Scheduler }> {
  const upstream = await startUpstream({ parallel: 8, ttftMs: 5, tokenMs: 2, prefillMsPerToken: 0 });
  const scheduler = createScheduler({ maxConcurrency: 8 });
  const gateway = await startGateway(scheduler, upstream.url);
  const random = createRandom(seed);
  let next = 0;
  let left = 0;
  let served = 0;
  const failed: Record<string, number> = {};
  const one = async (): Promise<void> => {
    const leaves = random() < 0.5;
    const leaveAfterMs = random() * 25; // the stream lasts about 25 ms: mid-stream
    const client = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let outcome: string;
    try {
      const response = await fetch(`${gateway.url}${ROUTE}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-priority": "batch" },
        body: completion,
        signal: client.signal,
      });
      if (leaves) timer = setTimeout(() => client.abort(), leaveAfterMs);
      const text = await response.text();
      outcome =
        response.status === 200 && text.endsWith("data: [DONE]\n\n") ? "served" : String(response.status);
    } catch {
      outcome = client.signal.aborted ? "left" : "error";
    }
    clearTimeout(timer);
    if (outcome === "left") left++;
    else if (outcome === "served") served++;
    else failed[outcome] = (failed[outcome] ?? 0) + 1;
  };
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < requests) {
          next++;
          await one();
        }
      }),
    );
    return { ms: performance.now() - started, requests, left, served, failed, scheduler };
  } finally {
    await gateway.close();
    await scheduler.close({ timeoutMs: 100 });
    await upstream.close();
  }
}
