/**
 * One gateway process for the multi-process test: a scheduler on a RedisStore in front of an upstream.
 * `GET /run?id=…&priority=…&tenant=…` runs one upstream call through the scheduler and answers with the
 * upstream's status, or with the scheduler's rejection; `GET /metrics.json` answers `scheduler.metrics()`,
 * whether the scheduler is idle and the store's status. Prints `READY <port>` once it listens.
 * Settings come from the environment: REDIS_URL, PREFIX, UPSTREAM_URL, LEASE_MS, MAX_CONCURRENCY.
 */
import { createServer } from "node:http";
import { createScheduler, errorResponseFor } from "@llm-scheduler/core";
import { RedisStore } from "@llm-scheduler/redis";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const store = new RedisStore({
  url: env("REDIS_URL"),
  prefix: env("PREFIX"),
  leaseMs: Number(env("LEASE_MS")),
  onError: (error) => console.error("store:", (error as Error).message),
});
const scheduler = createScheduler({
  maxConcurrency: Number(env("MAX_CONCURRENCY")),
  priorities: {
    interactive: { weight: 5, queueTimeoutMs: 30_000 },
    batch: { weight: 1, queueTimeoutMs: 60_000 },
  },
  store,
});
const upstream = env("UPSTREAM_URL");

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://gateway");
  if (url.pathname === "/metrics.json") {
    let idle = false;
    void scheduler.onIdle().then(() => {
      idle = true; // at once (before setImmediate) when nothing waits and nothing runs
    });
    setImmediate(() => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ...scheduler.metrics(), idle, store: store.status }));
    });
    return;
  }
  const priority = url.searchParams.get("priority") ?? "interactive";
  const tenant = url.searchParams.get("tenant") ?? "default";
  const id = url.searchParams.get("id") ?? "";
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  scheduler
    .run(
      async ({ signal }) => {
        const answer = await fetch(`${upstream}/work?id=${encodeURIComponent(id)}&priority=${priority}`, {
          signal,
        });
        return { status: answer.status, body: await answer.text() };
      },
      { priority, tenant, id, signal: controller.signal },
    )
    .then(
      ({ status, body }) => {
        res.writeHead(status, { "content-type": "text/plain" }).end(body);
      },
      (error: unknown) => {
        const response = errorResponseFor(error);
        res.writeHead(response.status, { "content-type": "application/json", ...response.headers });
        res.end(JSON.stringify(response.body));
      },
    );
});

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(`READY ${typeof address === "object" && address !== null ? address.port : 0}`);
});

process.on("SIGTERM", () => {
  server.close();
  void scheduler
    .close({ timeoutMs: 1_000 })
    .then(() => store.close())
    .then(() => process.exit(0));
});
