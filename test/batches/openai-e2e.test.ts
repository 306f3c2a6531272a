import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import {
  createBatches,
  type ExecuteContext,
  openaiExecutor,
  type ServedBatches,
} from "@llm-scheduler/batches";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import OpenAI, { toFile } from "openai";
import { afterEach, describe, expect, it } from "vitest";

const ITEMS = 30;

/** The fault the simulator is told to inject on an item's first attempt (by the `x-sim-fault` header). */
function faultOf(context: ExecuteContext): string {
  if (context.attempt > 1) return "none";
  const n = Number(context.item.customId.slice(2));
  if (n < 5) return "429";
  if (n < 10) return "500";
  if (n < 13) return "hang";
  return "none";
}

function line(n: number): string {
  return JSON.stringify({
    custom_id: `q-${n}`,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model: "sim-model", messages: [{ role: "user", content: `question ${n}` }], max_tokens: 4 },
  });
}

describe("the official openai client against batches.fetch", () => {
  let upstream: Upstream | undefined;
  let scheduler: Scheduler | undefined;
  let batches: ServedBatches | undefined;
  let server: Server | undefined;

  afterEach(async () => {
    await batches?.close();
    await scheduler?.close({ timeoutMs: 100 });
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    await upstream?.close();
  });

  it("files.create + batches.create + retrieve until done + files.content: every line once, 429s, 500s and hangs retried", async () => {
    upstream = await startUpstream({
      port: 0,
      parallel: 4,
      ttftMs: 5,
      tokenMs: 1,
      slowdown: 0,
      retryAfterSeconds: 0.3,
    });
    scheduler = createScheduler({ maxConcurrency: 4 });
    const seenKeys = new Set<string>();
    batches = createBatches({
      scheduler,
      execute: openaiExecutor({
        baseURL: `${upstream.url}/v1`,
        apiKey: "sk-upstream",
        headers: (context) => ({ "x-sim-fault": faultOf(context) }),
      }),
      itemTimeoutMs: 1_000,
      pollMs: 50,
      retry: { maxAttempts: 4, baseMs: 20, maxMs: 200 },
      tenant: (request) => {
        const key = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
        if (key !== undefined) seenKeys.add(key);
        return key;
      },
    });
    const served = batches;
    server = createServer(getRequestListener((request) => served.fetch(request)));
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "team-a", maxRetries: 0 });

    const text = `${Array.from({ length: ITEMS }, (_, n) => line(n)).join("\n")}\n`;
    const file = await client.files.create({
      file: await toFile(Buffer.from(text), "input.jsonl"),
      purpose: "batch",
    });
    expect(file.purpose).toBe("batch");
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
      metadata: { run: "e2e" },
    });
    expect(created.status).toBe("in_progress");

    let batch = await client.batches.retrieve(created.id);
    const started = performance.now();
    while (batch.status !== "completed" && performance.now() - started < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      batch = await client.batches.retrieve(created.id);
    }
    expect(batch.status).toBe("completed");
    expect(batch.request_counts).toEqual({ total: ITEMS, completed: ITEMS, failed: 0 });
    expect(batch.error_file_id).toBeNull();
    const content = await (await client.files.content(batch.output_file_id!)).text();
    const lines = content
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as {
            custom_id: string;
            response: { status_code: number; body: { choices: unknown[] } };
          },
      );
    expect(lines.map((l) => l.custom_id).sort()).toEqual(
      Array.from({ length: ITEMS }, (_, n) => `q-${n}`).sort(),
    );
    expect(lines.every((l) => l.response.status_code === 200 && l.response.body.choices.length === 1)).toBe(
      true,
    );

    const results = new Map<string, Array<{ startedAt: number; status?: number; error?: string }>>();
    for await (const r of served.results(batch.id)) results.set(r.customId, [...r.attempts]);
    const firsts = [0, 4, 5, 9, 10, 12].map((n) => results.get(`q-${n}`)!.map((a) => a.error ?? a.status));
    expect(firsts).toEqual([
      ["http_429", 200],
      ["http_429", 200],
      ["http_500", 200],
      ["http_500", 200],
      ["RUN_TIMEOUT", 200],
      ["RUN_TIMEOUT", 200],
    ]);
    const [limited, retried] = results.get("q-0")!;
    expect(retried!.startedAt - limited!.startedAt).toBeGreaterThanOrEqual(290); // the upstream's retry-after-ms
    expect(results.get("q-20")).toHaveLength(1);
    expect([...seenKeys]).toEqual(["team-a"]);

    const list = await client.batches.list({ limit: 5 });
    expect(list.data.map((b) => b.id)).toEqual([batch.id]);
    const other = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "team-b", maxRetries: 0 });
    await expect(other.batches.retrieve(batch.id)).rejects.toMatchObject({ status: 404 });
  });
});
