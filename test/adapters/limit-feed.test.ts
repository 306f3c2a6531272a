import { getRequestListener } from "@hono/node-server";
import { createScheduler, type LimitEvent, type Scheduler, type TokenUsage } from "@llm-scheduler/core";
import { MemoryStore, type Ticket } from "@llm-scheduler/core/kit";
import { schedulerMiddleware as honoScheduler, type LlmSchedulerEnv } from "@llm-scheduler/hono";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import type { ContractApp } from "./contract.js";
import {
  type StartGateway,
  startExpressGateway,
  startHonoGateway,
  startHonoScheduledGateway,
  startKoaGateway,
} from "./gateways.js";
import { until } from "./probe.js";
import { serveListener } from "./serve.js";

/** The memory store, recording each usage report. */
class RecordingStore extends MemoryStore {
  readonly reports: TokenUsage[] = [];

  override reportUsage(ticket: Ticket, usage: TokenUsage): void {
    this.reports.push(usage);
    super.reportUsage(ticket, usage);
  }
}

const gateways: Array<[string, StartGateway]> = [
  ["Express", startExpressGateway],
  ["Koa", startKoaGateway],
  ["Hono", startHonoGateway],
  ["Hono scheduled(app)", startHonoScheduledGateway],
];

/** A plain chat completion through the gateway with fetch (no client retries), streamed or not. */
async function ask(url: string, prompt: string, stream = false, tenant = "anyone"): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-tenant": tenant },
    body: JSON.stringify({
      model: "m",
      max_tokens: 8,
      messages: [{ role: "user", content: prompt }],
      ...(stream && { stream: true, stream_options: { include_usage: true } }),
    }),
  });
  await response.arrayBuffer();
  return response.status;
}

describe.each(gateways)(
  "a %s gateway feeds relayed answers into the adaptive limit",
  (_name, startGateway) => {
    let upstream: Upstream | undefined;
    let gateway: ContractApp | undefined;
    let scheduler: Scheduler | undefined;

    afterEach(async () => {
      await gateway?.close();
      await scheduler?.close({ timeoutMs: 100 });
      await upstream?.close();
    });

    async function start(options: Parameters<typeof startUpstream>[0], store = new MemoryStore()) {
      upstream = await startUpstream({ port: 0, ttftMs: 5, tokenMs: 1, slowdown: 0, ...options });
      scheduler = createScheduler({
        store,
        maxConcurrency: { initial: 8, min: 2, max: 8 },
        adaptive: { cooldownMs: 0 },
      });
      const events: LimitEvent[] = [];
      scheduler.on("limit", (event) => events.push(event));
      const started = await startGateway(scheduler, upstream.url);
      gateway = started;
      return { url: started.url, events };
    }

    it("a relayed 503 cuts the limit as the server's overload", async () => {
      // One sequence and no queue: of two requests at once, the second is answered 503 by the server.
      const { url, events } = await start({ parallel: 1, maxQueued: 0, ttftMs: 300 });
      const statuses = await Promise.all([ask(url, "first"), ask(url, "second")]);
      expect(statuses.sort()).toEqual([200, 503]);
      await until(() => events.length > 0, "the limit event");
      expect(events[0]).toMatchObject({ previous: 8, limit: 6, reason: "overload" });
    });

    it("a relayed 429 while no other tenant succeeds reaches the limit too", async () => {
      const { url, events } = await start({ faultRules: [{ fault: "429", promptIncludes: "limited" }] });
      expect(await ask(url, "limited")).toBe(429);
      await until(() => events.length > 0, "the limit event");
      expect(events[0]).toMatchObject({ previous: 8, reason: "overload" });
    });

    it("reads the usage of JSON answers and SSE streams with no reportUsage from the handler", async () => {
      const store = new RecordingStore();
      const { url } = await start({}, store);
      expect(await ask(url, "json")).toBe(200);
      expect(await ask(url, "stream", true)).toBe(200);
      await until(() => store.reports.length === 2, "both usages");
      for (const usage of store.reports) expect(usage.outputTokens).toBe(8);
    });
  },
);

describe("one tenant's 429s through a gateway", () => {
  let upstream: Upstream | undefined;
  let gateway: ContractApp | undefined;
  let scheduler: Scheduler | undefined;

  afterEach(async () => {
    await gateway?.close();
    await scheduler?.close({ timeoutMs: 100 });
    await upstream?.close();
  });

  it("hold back that tenant only, while another tenant's answers succeed: the shared limit stays", async () => {
    // A per-key rate limit upstream: every request of tenant a is answered 429.
    upstream = await startUpstream({
      port: 0,
      ttftMs: 20,
      tokenMs: 1,
      slowdown: 0,
      faultRules: [{ fault: "429", promptIncludes: "tenant-a", times: Number.POSITIVE_INFINITY }],
    });
    const target = upstream.url;
    scheduler = createScheduler({
      maxConcurrency: { initial: 8, min: 2, max: 8 },
      adaptive: { cooldownMs: 0 },
    });
    const events: LimitEvent[] = [];
    scheduler.on("limit", (event) => events.push(event));
    const app = new Hono<LlmSchedulerEnv>();
    const tenant = (c: { req: { header(name: string): string | undefined } }) =>
      c.req.header("x-tenant") ?? "";
    app.post("/v1/chat/completions", honoScheduler({ scheduler, tenant }), async (c) => {
      const { signal } = c.get("llmScheduler");
      const headers = { "content-type": "application/json" };
      const body = await c.req.text();
      const answer = await fetch(`${target}/v1/chat/completions`, { method: "POST", headers, body, signal });
      const type = answer.headers.get("content-type") ?? "application/json";
      return new Response(answer.body, { status: answer.status, headers: { "content-type": type } });
    });
    const started = await serveListener(getRequestListener(app.fetch));
    gateway = started;
    const end = Date.now() + 1_500;
    const statuses = { a: [] as number[], b: [] as number[] };
    const client = async (name: "a" | "b"): Promise<void> => {
      while (Date.now() < end)
        statuses[name].push(await ask(started.url, `from tenant-${name}`, false, name));
    };
    // Tenant b is served first; then tenant a's 429s come while b's answers succeed.
    const served = [client("b"), client("b")];
    await until(() => statuses.b.length > 0, "tenant b's first answer");
    await Promise.all([...served, client("a"), client("a"), client("a"), client("a")]);
    expect(statuses.a.length).toBeGreaterThan(10);
    expect(new Set(statuses.a)).toEqual(new Set([429]));
    expect(new Set(statuses.b)).toEqual(new Set([200]));
    expect(events.filter((event) => event.reason === "overload")).toEqual([]);
    expect(scheduler.maxConcurrency).toBe(8);
  });
});
