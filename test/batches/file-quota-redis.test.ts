import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { type Batches, createBatches, newId } from "@llm-scheduler/batches";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { RedisBatchStore } from "@llm-scheduler/redis";
import OpenAI, { APIError, toFile } from "openai";
import { afterAll, describe, expect, it } from "vitest";
import { useRedisServer, waitFor } from "../redis/helpers.js";

// Two gateway instances share one Redis batch store; the official client uploads to both at once.
const redis = useRedisServer();
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function instance(
  prefix: string,
  extra: Partial<Parameters<typeof createBatches>[0]> = {},
): Promise<{ client: OpenAI; batches: Batches }> {
  const scheduler: Scheduler = createScheduler({ maxConcurrency: 2 });
  const store = new RedisBatchStore({ url: redis.server.url, prefix });
  const batches = createBatches({
    scheduler,
    store,
    execute: async () => ({ status: 200, body: {} }),
    maxInFlight: 0,
    maxFilesPerTenant: 5,
    maxFileBytesPerTenant: 100_000,
    tenant: (request) => /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1],
    ...extra,
  });
  const server: Server = createServer(getRequestListener((request) => batches.fetch(request)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () => store.close(),
    () => scheduler.close({ timeoutMs: 100 }),
    () => batches.close(),
    () => new Promise((resolve) => server.close(resolve)),
  );
  const { port } = server.address() as AddressInfo;
  const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "team-a", maxRetries: 0 });
  return { client, batches };
}

const jsonl = (n: number, size = 10) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      custom_id: `r-${i}`,
      method: "POST",
      url: "/v1/chat/completions",
      body: { p: "x".repeat(size) },
    }),
  ).join("\n");

/** The status and error code an upload ends with. */
async function upload(client: OpenAI, text: string): Promise<string> {
  try {
    await client.files.create({ file: await toFile(Buffer.from(text), "in.jsonl"), purpose: "batch" });
    return "200";
  } catch (error) {
    if (error instanceof APIError) return `${error.status} ${error.code}`;
    throw error;
  }
}

describe("file quotas over HTTP with a shared Redis store", () => {
  it("concurrent uploads on two instances: exactly the tenant's cap gets in; expires_after is honoured", async () => {
    const prefix = `fq-${newId("p")}:`;
    const [a, b] = [await instance(prefix), await instance(prefix)];
    const first = await a.client.files.create({
      file: await toFile(Buffer.from(jsonl(2)), "in.jsonl"),
      purpose: "batch",
      expires_after: { anchor: "created_at", seconds: 3_600 },
    });
    expect(first.expires_at).toBe(first.created_at + 3_600);
    const racing = await Promise.all(
      Array.from({ length: 12 }, (_, i) => upload(i % 2 === 0 ? a.client : b.client, jsonl(2))),
    );
    expect(racing.filter((r) => r === "200")).toHaveLength(4);
    expect(racing.filter((r) => r === "429 files_quota_exceeded")).toHaveLength(8);
    expect((await b.client.files.delete(first.id)).deleted).toBe(true);
    expect(await upload(b.client, jsonl(2))).toBe("200");
    expect(await upload(a.client, jsonl(2))).toBe("429 files_quota_exceeded");
  });

  it("refuses the upload past the tenant's bytes on either instance and keeps nothing of it", async () => {
    const prefix = `fq-${newId("p")}:`;
    const [a, b] = [await instance(prefix), await instance(prefix)];
    const big = jsonl(60, 1_000); // about 64 KB
    const results = await Promise.all([upload(a.client, big), upload(b.client, big)]);
    expect(results.sort()).toEqual(["200", "429 files_quota_exceeded"]);
    const small = jsonl(20, 1_000); // about 21 KB: fits beside the first, not beside both
    expect(await upload(b.client, small)).toBe("200");
    expect(await upload(a.client, small)).toBe("429 files_quota_exceeded");
  });

  it("an expired file's keys leave Redis by their own time to live, and the next upload gives its place back", async () => {
    const prefix = `fq-${newId("p")}:`;
    const { client, batches } = await instance(prefix, {
      fileTtlMs: 1_000,
      maxFilesPerTenant: 1,
      pollMs: 600_000,
    });
    const file = await client.files.create({
      file: await toFile(Buffer.from(jsonl(3)), "in.jsonl"),
      purpose: "batch",
    });
    expect(file.expires_at).toBe(file.created_at + 1);
    expect(await upload(client, jsonl(1))).toBe("429 files_quota_exceeded");
    // no sweep runs (pollMs): Redis drops the keys itself
    await waitFor(
      async () => (await batches.store.getFile(file.id)) === undefined,
      5_000,
      "the file's keys to expire",
    );
    expect(await batches.store.fileLines(file.id, 0, 10)).toEqual([]);
    expect(await upload(client, jsonl(1))).toBe("200");
  });
});
