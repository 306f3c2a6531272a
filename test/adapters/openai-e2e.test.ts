import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import type { ContractApp } from "./contract.js";
import { type StartGateway, startExpressGateway, startHonoGateway, startKoaGateway } from "./gateways.js";
import { until } from "./probe.js";

const gateways: ReadonlyArray<readonly [string, StartGateway]> = [
  ["express", startExpressGateway],
  ["koa", startKoaGateway],
  ["hono", startHonoGateway],
];

const messages = [{ role: "user" as const, content: "Say something short." }];

describe.each(gateways)("the official openai client through a %s gateway", (_name, startGateway) => {
  let upstream: Upstream | undefined;
  let gateway: ContractApp | undefined;
  let scheduler: Scheduler | undefined;

  afterEach(async () => {
    await gateway?.close();
    await scheduler?.close({ timeoutMs: 100 });
    await upstream?.close();
    gateway = undefined;
    scheduler = undefined;
    upstream = undefined;
  });

  async function start(options: Parameters<typeof createScheduler>[0], maxRetries = 0) {
    upstream = await startUpstream({ port: 0, parallel: 4, ttftMs: 10, tokenMs: 4, slowdown: 0 });
    scheduler = createScheduler(options);
    const started = await startGateway(scheduler, upstream.url);
    gateway = started;
    const client = new OpenAI({
      baseURL: `${started.url}/v1`,
      apiKey: "test-key",
      maxRetries,
      timeout: 20_000,
    });
    return { client, scheduler, upstream };
  }

  it("answers streaming and non-streaming calls, and interactive streams get their first token well before a batch flood drains", async () => {
    const { client, scheduler, upstream } = await start({
      maxConcurrency: 4,
      priorities: {
        interactive: { weight: 5, reserved: 1, queueTimeoutMs: 10_000 },
        batch: { weight: 1, queueTimeoutMs: 30_000 },
      },
    });
    const began = performance.now();
    const batchDoneAt: number[] = [];
    const flood = Array.from({ length: 24 }, () =>
      client.chat.completions
        .create({ model: "sim-model", messages, max_tokens: 30 }, { headers: { "x-priority": "batch" } })
        .then((completion) => {
          batchDoneAt.push(performance.now() - began);
          return completion;
        }),
    );
    await until(() => scheduler.metrics().priorities.batch!.queued >= 16, "the batch flood to queue up");

    const firstTokens = await Promise.all(
      Array.from({ length: 3 }, async () => {
        const stream = await client.chat.completions.create({
          model: "sim-model",
          messages,
          max_tokens: 8,
          stream: true,
        });
        let firstAt: number | undefined;
        let text = "";
        for await (const chunk of stream) {
          const delta = chunk.choices[0]?.delta.content ?? "";
          if (delta !== "" && firstAt === undefined) firstAt = performance.now() - began;
          text += delta;
        }
        expect(text.length).toBeGreaterThan(0);
        return firstAt!;
      }),
    );
    const completions = await Promise.all(flood);

    for (const completion of completions) {
      expect(completion.object).toBe("chat.completion");
      expect(completion.choices[0]?.message.content?.length).toBeGreaterThan(0);
    }
    const lastFirstToken = Math.max(...firstTokens);
    const batchDoneBefore = batchDoneAt.filter((doneAt) => doneAt < lastFirstToken).length;
    // FIFO would finish the 16+ queued batch calls first; the scheduler lets interactive in at the next slot.
    expect(batchDoneBefore).toBeLessThanOrEqual(8);
    expect(upstream.stats().maxInFlightSeen).toBeLessThanOrEqual(4);
    await until(() => scheduler.metrics().running === 0, "every slot to be released");
    expect(scheduler.metrics()).toMatchObject({ running: 0, queued: 0, completed: 27, failed: 0 });
    expect(scheduler.metrics().priorities.interactive!.waitMs.max).toBeLessThan(
      scheduler.metrics().priorities.batch!.waitMs.max,
    );
  });

  it("answers a flood on a small queue with 429s that the client retries after retry-after-ms until all succeed", async () => {
    const { client, scheduler, upstream } = await start(
      {
        maxConcurrency: 2,
        priorities: { interactive: { maxQueue: 2, queueTimeoutMs: 10_000 }, batch: {} },
      },
      8,
    );
    let retried = 0;
    scheduler.on("queued", (event) => {
      if (event.retry) retried++;
    });
    const calls = 10;
    const results = await Promise.all(
      Array.from({ length: calls }, (_, index) =>
        index % 2 === 0
          ? client.chat.completions.create({ model: "sim-model", messages, max_tokens: 6 })
          : client.chat.completions
              .create({ model: "sim-model", messages, max_tokens: 6, stream: true })
              .then(async (stream) => {
                let text = "";
                for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
                return text;
              }),
      ),
    );
    expect(results).toHaveLength(calls);
    for (const result of results) {
      const text = typeof result === "string" ? result : result.choices[0]?.message.content;
      expect(text?.length).toBeGreaterThan(0);
    }
    const metrics = scheduler.metrics();
    expect(metrics.rejected.QUEUE_FULL ?? 0).toBeGreaterThan(0);
    expect(retried).toBeGreaterThan(0);
    expect(upstream.stats().served).toBe(calls);
    expect(upstream.stats().maxInFlightSeen).toBeLessThanOrEqual(2);
    await until(() => scheduler.metrics().running === 0, "every slot to be released");
    expect(scheduler.metrics()).toMatchObject({ running: 0, queued: 0, completed: calls });
  });
});
