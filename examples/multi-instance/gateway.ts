// One gateway instance: Express in front of an LLM server, scheduled through Redis so that every
// instance sharing REDIS_URL and the key prefix obeys one global limit and one global order.
import { createScheduler } from "@llm-scheduler/core";
import { schedulerMiddleware } from "@llm-scheduler/express";
import { RedisStore } from "@llm-scheduler/redis";
import express from "express";

const name = process.env.NAME ?? "gateway";
const upstream = process.env.UPSTREAM_URL ?? "http://127.0.0.1:8000";

const store = new RedisStore({
  url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
  prefix: "llm-demo:",
  leaseMs: 10_000,
  onStoreError: "local", // if Redis goes away, keep serving under maxConcurrency / expectedInstances
  expectedInstances: 2,
  onError: (error) => console.error(`[${name}] store: ${(error as Error).message}`),
});
const scheduler = createScheduler({
  maxConcurrency: Number(process.env.MAX_CONCURRENCY ?? 4), // for all instances together
  priorities: {
    interactive: { weight: 5, queueTimeoutMs: 30_000 },
    batch: { weight: 1, queueTimeoutMs: 600_000, maxWaitMs: 60_000 },
  },
  store,
});

const app = express();
// A client may lower its priority with `x-priority: batch`; everything else is interactive.
app.use("/v1/chat/completions", schedulerMiddleware({ scheduler }));
app.post("/v1/chat/completions", express.json(), async (req, res) => {
  const answer = await fetch(`${upstream}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(req.body),
    signal: req.llmScheduler!.signal,
  });
  res
    .status(answer.status)
    .type("application/json")
    .send(await answer.text());
});
app.get("/metrics", (_req, res) => {
  res.json(scheduler.metrics());
});

const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  console.log(`READY ${typeof address === "object" && address !== null ? address.port : 0}`);
});

process.on("SIGTERM", async () => {
  server.close();
  await scheduler.close({ drain: true, timeoutMs: 5_000 });
  await store.close();
  process.exit(0);
});
