import { createScheduler, type Scheduler, type TokenUsage } from "@llm-scheduler/core";
import { MemoryStore, type Ticket } from "@llm-scheduler/core/kit";
import { schedulerMiddleware as expressScheduler } from "@llm-scheduler/express";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import express from "express";
import OpenAI from "openai";
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

/** The memory store, recording each usage report with the estimate it corrects. */
class RecordingStore extends MemoryStore {
  readonly reports: Array<{ estimate: number } & TokenUsage> = [];

  override reportUsage(ticket: Ticket, usage: TokenUsage): void {
    this.reports.push({ estimate: ticket.tokens ?? 0, ...usage });
    super.reportUsage(ticket, usage);
  }
}

const content = "Count the tokens of this prompt, please.";
const messages = [{ role: "user" as const, content }];
const gateways: Array<[string, StartGateway]> = [
  ["Express", startExpressGateway],
  ["Koa", startKoaGateway],
  ["Hono", startHonoGateway],
  ["Hono scheduled(app)", startHonoScheduledGateway],
];

describe.each(gateways)("usage correction through a %s gateway", (name, startGateway) => {
  let upstream: Upstream | undefined;
  let gateway: ContractApp | undefined;
  let scheduler: Scheduler | undefined;

  afterEach(async () => {
    await gateway?.close();
    await scheduler?.close({ timeoutMs: 100 });
    await upstream?.close();
  });

  it("reports the usage of JSON answers and of SSE streams ending with a usage chunk", async () => {
    upstream = await startUpstream({ port: 0, parallel: 4, ttftMs: 5, tokenMs: 1, slowdown: 0 });
    const store = new RecordingStore();
    scheduler = createScheduler({ store, maxConcurrency: 2, fairness: "tokens" });
    const started = await startGateway(scheduler, upstream.url);
    gateway = started;
    const client = new OpenAI({ baseURL: `${started.url}/v1`, apiKey: "k", maxRetries: 0, timeout: 20_000 });

    const completion = await client.chat.completions.create({ model: "m", messages, max_tokens: 12 });
    await until(() => store.reports.length === 1, "the JSON answer's usage");
    expect(store.reports[0]).toMatchObject({
      inputTokens: completion.usage!.prompt_tokens,
      outputTokens: completion.usage!.completion_tokens,
    });

    const stream = await client.chat.completions.create({
      model: "m",
      messages,
      max_tokens: 9,
      stream: true,
      stream_options: { include_usage: true },
    });
    let last: OpenAI.Chat.Completions.ChatCompletionChunk | undefined;
    for await (const chunk of stream) last = chunk;
    await until(() => store.reports.length === 2, "the stream's usage chunk");
    expect(store.reports[1]).toMatchObject({
      inputTokens: last!.usage!.prompt_tokens,
      outputTokens: last!.usage!.completion_tokens,
    });
    // Hono reads a copy of the JSON body for the estimate; the Node gateways forward an unparsed stream,
    // charged from its declared length (bytes / 4) and the default output bound (1,024).
    const sent = Buffer.byteLength(JSON.stringify({ model: "m", messages, max_tokens: 12 }));
    const expected = name.startsWith("Hono")
      ? Math.ceil(content.length / 4) + 12
      : Math.ceil(sent / 4) + 1_024;
    expect(store.reports[0]!.estimate).toBe(expected);
  });
});

describe("the Express estimate from a parsed body", () => {
  let app: ContractApp | undefined;
  let scheduler: Scheduler | undefined;

  afterEach(async () => {
    await app?.close();
    await scheduler?.close({ timeoutMs: 100 });
  });

  /** An Express gateway whose handler reports `handlerUsage` itself (when given), then answers with a usage. */
  async function post(options: Parameters<typeof createScheduler>[0], handlerUsage?: TokenUsage) {
    const store = new RecordingStore();
    scheduler = createScheduler({ ...options, store });
    const server = express();
    server.use(express.json());
    server.post("/v1/chat/completions", expressScheduler({ scheduler }), (req, res) => {
      if (handlerUsage !== undefined) req.llmScheduler!.reportUsage(handlerUsage);
      res.json({ id: "x", choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } });
    });
    const started = await serveListener(server);
    app = started;
    const client = new OpenAI({ baseURL: `${started.url}/v1`, apiKey: "k", maxRetries: 0 });
    await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "x".repeat(40) }],
    });
    return store;
  }

  it("estimates from req.body, and a handler's own reportUsage counts over the answer's", async () => {
    const store = await post({ fairness: "tokens" }, { inputTokens: 7, outputTokens: 8 });
    await until(() => store.reports.length === 1, "the handler's report");
    expect(store.reports).toEqual([{ estimate: 10 + 1_024, inputTokens: 7, outputTokens: 8 }]);
  });

  it("neither estimates nor reads the answer's usage while the scheduler counts no tokens", async () => {
    const store = await post({});
    await until(() => scheduler!.metrics().completed === 1, "the slot's release");
    expect(store.reports).toEqual([]);
    await app?.close();
    await scheduler?.close({ timeoutMs: 100 });
    // The handler's own report still reaches the store, without an estimate to correct.
    const reported = await post({}, { inputTokens: 3, outputTokens: 4 });
    await until(() => reported.reports.length === 1, "the handler's report");
    expect(reported.reports).toEqual([{ estimate: 0, inputTokens: 3, outputTokens: 4 }]);
  });
});
