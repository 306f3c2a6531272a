import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventually,
  root,
  type Spawned,
  type StartedExamples,
  startExample,
  startExamples,
} from "./spawn.js";

let sim: Upstream;
/** The three examples the first blocks run against, started at once (each start is mostly tsx). */
let examples: StartedExamples;

/**
 * A prompt the simulator never answers until its caller goes away. A rule on the prompt, not the
 * `x-sim-fault` header: the examples forward only the headers an upstream needs, so a header never
 * reaches the simulator, and the request would be answered in ~70 ms instead of hanging.
 */
const HANG = "hang until cancelled";

beforeAll(async () => {
  sim = await startUpstream({
    port: 0,
    parallel: 4,
    ttftMs: 5,
    tokenMs: 1,
    prefillMsPerToken: 0,
    faultRules: [{ fault: "hang", times: Number.POSITIVE_INFINITY, promptIncludes: HANG }],
  });
  const env = { ...KEYS, UPSTREAM_URL: sim.url, MAX_CONCURRENCY: "2" };
  examples = startExamples(Object.fromEntries(entries.map(([entry]) => [entry!, [entry!, env] as const])));
});

afterAll(async () => {
  await examples?.stopAll();
  await sim?.close();
});

/** Sends one plain and one streamed chat completion through `baseURL` with the official client. */
async function chatThrough(baseURL: string, apiKey: string): Promise<void> {
  const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey, maxRetries: 0 });
  const answer = await client.chat.completions.create({
    model: "sim-model",
    messages: [{ role: "user", content: "Say hello" }],
    max_tokens: 8,
  });
  expect(answer.object).toBe("chat.completion");
  expect(answer.choices[0]?.message.content?.split(" ").filter(Boolean)).toHaveLength(8);
  expect(answer.usage?.completion_tokens).toBe(8);

  const stream = await client.chat.completions.create({
    model: "sim-model",
    messages: [{ role: "user", content: "Count" }],
    max_tokens: 5,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let finish: string | null | undefined;
  let usage: number | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? "";
    finish = chunk.choices[0]?.finish_reason ?? finish;
    usage = chunk.usage?.completion_tokens ?? usage;
  }
  expect(text.split(" ").filter(Boolean)).toHaveLength(5);
  expect(finish).toBe("length");
  expect(usage).toBe(5);
}

interface Metrics {
  running: number;
  priorities: Record<string, { started: number; running: number }>;
}

/** The examples serve their metrics and dashboard to the admin key only. */
const ADMIN_KEY = "sk-admin-examples-test";
const admin = { headers: { authorization: `Bearer ${ADMIN_KEY}` } };
/** The key table every example here runs with. */
const KEYS = { API_KEYS: "sk-test:test-team:interactive", ADMIN_KEY };

const metricsOf = async (url: string): Promise<Metrics> =>
  (await fetch(`${url}/metrics.json`, admin)).json() as Promise<Metrics>;

const entries = [["express-openai-proxy/server.ts"], ["koa-gateway/server.ts"], ["hono-gateway/server.ts"]];

/** Runs an example that should refuse to start; resolves with its exit code and what it printed. */
function refusal(entry: string, env: Record<string, string>): Promise<{ code: number | null; text: string }> {
  const child = spawn(`${root}node_modules/.bin/tsx`, ["--conditions=source", `examples/${entry}`], {
    cwd: root,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  return new Promise((resolve) => {
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, text });
    });
  });
}

describe.each(entries)("examples/%s", (entry) => {
  let example: Spawned;

  beforeAll(async () => {
    example = await examples.get(entry);
  }, 100_000);

  it("answers the official OpenAI client, plain and streamed, through the scheduler", async () => {
    const before = (await metricsOf(example.url)).priorities.interactive?.started ?? 0;
    await chatThrough(example.url, "sk-test");
    const after = await metricsOf(example.url);
    expect(after.priorities.interactive?.started).toBe(before + 2);
    expect(after.running).toBe(0);
  });

  it("cancels the upstream request when the client disconnects", async () => {
    const { cancelled, served, faults } = sim.stats();
    const controller = new AbortController();
    const request = fetch(`${example.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test", "content-type": "application/json" },
      body: JSON.stringify({ model: "sim-model", messages: [{ role: "user", content: HANG }] }),
      signal: controller.signal,
    }).catch(() => undefined);
    await eventually(() => sim.stats().inFlight === 1);
    controller.abort();
    await request;
    await eventually(() => sim.stats().cancelled >= cancelled + 1 && sim.stats().inFlight === 0);
    expect(sim.stats()).toMatchObject({ served, faults: { hang: faults.hang + 1 } }); // it hung, never answered
    await eventually(async () => (await metricsOf(example.url)).running === 0);
    expect(example.output()).not.toMatch(/Error|\n\s+at /); // a client leaving is normal: nothing logged
  });

  it("passes /v1/models through to the upstream", async () => {
    const models = await fetch(`${example.url}/v1/models`, { headers: { authorization: "Bearer sk-test" } });
    expect(await models.json()).toMatchObject({ object: "list", data: [{ id: "sim-model" }] });
  });

  it("lets a client lower its priority with x-priority, never raise it", async () => {
    const client = new OpenAI({ baseURL: `${example.url}/v1`, apiKey: "sk-test", maxRetries: 0 });
    const body = {
      model: "sim-model",
      messages: [{ role: "user" as const, content: "later" }],
      max_tokens: 2,
    };
    const before = (await metricsOf(example.url)).priorities.batch?.started ?? 0;
    await client.chat.completions.create(body, { headers: { "x-priority": "batch" } });
    expect((await metricsOf(example.url)).priorities.batch?.started).toBe(before + 1);
  });

  it("serves /metrics in Prometheus text format and mounts the live dashboard", async () => {
    await chatThrough(example.url, "sk-test");
    const response = await fetch(`${example.url}/metrics`, admin);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toContain("# TYPE llm_scheduler_requests_total counter");
    const completed = /^llm_scheduler_requests_total\{[^}]*outcome="completed"[^}]*\} (\d+)$/m.exec(text);
    expect(Number(completed?.[1])).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/^llm_scheduler_time_to_first_byte_seconds_count\{priority="interactive"\} [1-9]/m);
    const page = await fetch(`${example.url}/dashboard`, admin);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<title>llm-scheduler dashboard</title>");
    const snapshot = (await (await fetch(`${example.url}/dashboard/api/snapshot`, admin)).json()) as {
      maxConcurrency: number;
    };
    expect(snapshot.maxConcurrency).toBe(2);
  });
});

// Each of these starts processes of its own, and shares nothing with the others: all side by side.
describe.concurrent.each(entries)("examples/%s, checked as a user would meet it", (entry) => {
  it("says in words what is wrong with its environment, and exits 1", async () => {
    const { code, text } = await refusal(entry, { UPSTREAM_URL: sim.url, MAX_CONCURRENCY: "abc" });
    expect(code).toBe(1);
    expect(text).toContain("Expected `MAX_CONCURRENCY` to be a whole number from 1 to 100000, got `abc`");
    expect(text).not.toMatch(/null|\n\s+at /); // no `got null (number)`, no stack trace
  });

  it("answers 502 with an OpenAI-style JSON body when the upstream is down", async () => {
    const down = await startExample(entry, { ...KEYS, UPSTREAM_URL: "http://127.0.0.1:9" });
    try {
      const answer = await fetch(`${down.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: "Bearer sk-test", "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [] }),
      });
      expect(answer.status).toBe(502);
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await answer.json()).toMatchObject({ error: { type: "upstream_error", code: "bad_gateway" } });
      expect(((await metricsOf(down.url)) as Metrics & { failed: number }).failed).toBe(1);
    } finally {
      await down.stop();
    }
  });
});

describe.concurrent.each(entries)("examples/%s with API keys", (entry) => {
  let example: Spawned;
  let raw: Server;
  let rawUrl: string;
  // An SSE answer cut at awkward places, a multi-byte character split across chunks included.
  const bytes = Buffer.from('data: {"a":"caf\u00e9 \u00e8"}\n\ndata: [DONE]\n\n');
  const cuts = [7, 16, 21, 30]; // byte 16 is the middle of the first two-byte character

  beforeAll(async () => {
    raw = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "x-upstream": "raw" });
      let at = 0;
      const next = () => {
        const cut = cuts.find((c) => c > at) ?? bytes.length;
        res.write(bytes.subarray(at, cut));
        at = cut;
        if (at < bytes.length) setTimeout(next, 5);
        else res.end();
      };
      next();
    });
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await example?.stop();
    await new Promise((resolve) => raw?.close(resolve));
  });

  it("maps keys to tenants and priorities, refuses unknown keys, and passes streams through byte for byte", async () => {
    example = await startExample(entry, {
      UPSTREAM_URL: rawUrl,
      API_KEYS: "sk-chat:chat-app:interactive,sk-etl:etl:batch",
      ADMIN_KEY,
    });
    const post = (key: string) =>
      fetch(`${example.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [], stream: true }),
      });
    const refused = await post("sk-unknown");
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: "invalid_api_key" } });

    const answer = await post("sk-etl");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/event-stream");
    expect(answer.headers.get("x-upstream")).toBe("raw");
    expect(Buffer.from(await answer.arrayBuffer()).equals(bytes)).toBe(true);

    const metrics = await metricsOf(example.url);
    expect(metrics.priorities.batch?.started).toBe(1);
    expect(metrics.priorities.interactive?.started ?? 0).toBe(0);
  });
});
