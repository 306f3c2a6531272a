import { afterEach, describe, expect, it, vi } from "vitest";
import { startUpstream, type Upstream } from "./server.js";

/** Poll often: the default 50 ms interval would make these tests slow. */
const poll = { timeout: 2000, interval: 2 };

let sim: Upstream | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: Parameters<typeof startUpstream>[0] = {}): Promise<Upstream> {
  sim = await startUpstream({ ttftMs: 1, prefillMsPerToken: 0, tokenMs: 1, ...options });
  return sim;
}

function post(upstream: Upstream, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${upstream.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const chat = (maxTokens?: number) => ({
  model: "sim-model",
  messages: [{ role: "user", content: "Hello, world" }],
  ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
});

describe("startUpstream", () => {
  it("listens on a free port and answers health, models and stats", async () => {
    const upstream = await start({ model: "llama-sim" });
    // A free port each time, not a fixed one: a second upstream started beside it gets another.
    const beside = await start();
    expect(beside.port).not.toBe(upstream.port);
    expect(upstream.url).toBe(`http://127.0.0.1:${upstream.port}`);
    expect(await (await fetch(`${upstream.url}/health`)).json()).toEqual({ status: "ok" });
    const models = await (await fetch(`${upstream.url}/v1/models`)).json();
    expect(models).toMatchObject({ object: "list", data: [{ id: "llama-sim", object: "model" }] });
    const stats = await (await fetch(`${upstream.url}/stats`)).json();
    expect(stats).toMatchObject({ inFlight: 0, queued: 0, maxInFlightSeen: 0, served: 0, byStatus: {} });
  });

  it("answers a non-streaming chat completion with defaultMaxTokens and usage", async () => {
    const upstream = await start({ defaultMaxTokens: 6 });
    const res = await post(upstream, "/v1/chat/completions", chat());
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "sim-model",
      choices: [{ index: 0, message: { role: "assistant" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 },
    });
    expect(body.choices[0].message.content.split(" ")).toHaveLength(6);
    expect(upstream.stats()).toMatchObject({ served: 1, byStatus: { 200: 1 }, completionTokens: 6 });
  });

  it("generates the same text for the same seed", async () => {
    const text = async (seed: number) => {
      const upstream = await startUpstream({ ttftMs: 0, tokenMs: 0, seed });
      try {
        const res = await post(upstream, "/v1/completions", { prompt: "Once", max_tokens: 8 });
        return (await res.json()).choices[0].text;
      } finally {
        await upstream.close();
      }
    };
    expect(await text(5)).toBe(await text(5));
    expect(await text(5)).not.toBe(await text(6));
  });

  it("serves at most `parallel` sequences and queues the rest inside the server", async () => {
    const upstream = await start({ parallel: 3, tokenMs: 2 });
    const responses = Array.from({ length: 9 }, () => post(upstream, "/v1/chat/completions", chat(10)));
    await vi.waitFor(async () => {
      const stats = await (await fetch(`${upstream.url}/stats`)).json();
      expect(stats.queued).toBeGreaterThan(0);
      expect(stats.inFlight).toBe(3);
    }, poll);
    const statuses = await Promise.all(responses.map(async (res) => (await res).status));
    expect(statuses).toEqual(Array(9).fill(200));
    const stats = upstream.stats();
    expect(stats.maxInFlightSeen).toBe(3);
    expect(stats.maxQueuedSeen).toBeGreaterThan(0);
    expect(stats).toMatchObject({ inFlight: 0, queued: 0, served: 9, received: 9 });
  });

  it("answers 503 when more than maxQueued requests would wait", async () => {
    const upstream = await start({ parallel: 1, maxQueued: 1 });
    const controller = new AbortController();
    const hung = post(upstream, "/v1/chat/completions", chat(), { "x-sim-fault": "hang" });
    await vi.waitFor(() => expect(upstream.stats().inFlight).toBe(1), poll);
    const queued = fetch(`${upstream.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify(chat(1)),
      signal: controller.signal,
    }).catch(() => undefined);
    await vi.waitFor(() => expect(upstream.stats().queued).toBe(1), poll);
    const rejected = await post(upstream, "/v1/chat/completions", chat(1));
    expect(rejected.status).toBe(503);
    expect(rejected.headers.get("retry-after")).toBe("1");
    expect((await rejected.json()).error).toMatchObject({ type: "overloaded_error", code: "server_busy" });
    controller.abort();
    await queued;
    await upstream.close();
    await hung.catch(() => undefined);
  });

  it.each([
    ["/v1/chat/completions", "{not json", "invalid_json"],
    ["/v1/chat/completions", { model: "m" }, "missing_required_parameter"],
    ["/v1/completions", { model: "m" }, "missing_required_parameter"],
  ])("answers 400 to a bad body on %s", async (path, body, code) => {
    const upstream = await start();
    const res = await post(upstream, path, body);
    expect(res.status).toBe(400);
    const json = await res.json();
    expect(json).toEqual({
      error: { message: expect.any(String), type: "invalid_request_error", param: json.error.param, code },
    });
    expect(upstream.stats().byStatus).toEqual({ 400: 1 });
  });

  it("answers 404 to an unknown route and 405 to a wrong method, OpenAI style", async () => {
    const upstream = await start();
    const missing = await fetch(`${upstream.url}/v1/audio/speech`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ type: "invalid_request_error", code: "not_found" });
    const wrong = await fetch(`${upstream.url}/v1/chat/completions`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    expect((await wrong.json()).error.code).toBe("method_not_allowed");
  });

  it("answers embeddings with one vector per input, the same for the same text", async () => {
    const upstream = await start();
    const embed = async (input: unknown) =>
      fetch(`${upstream.url}/v1/embeddings`, { method: "POST", body: JSON.stringify({ model: "e", input }) });
    const answer = await (await embed(["one", "two", "one"])).json();
    expect(answer.data).toHaveLength(3);
    expect(answer.data[0].embedding).toEqual(answer.data[2].embedding);
    expect(answer.data[0].embedding).not.toEqual(answer.data[1].embedding);
    expect(answer.usage.prompt_tokens).toBe(3);
    expect((await embed(42)).status).toBe(400);
  });

  it("close() ends open connections, even hung ones", async () => {
    const upstream = await start();
    const hung = post(upstream, "/v1/chat/completions", chat(), { "x-sim-fault": "hang" });
    await vi.waitFor(() => expect(upstream.stats().inFlight).toBe(1), poll);
    await upstream.close();
    await expect(hung).rejects.toThrow();
    expect(upstream.stats()).toMatchObject({ inFlight: 0, cancelled: 1 });
    await expect(fetch(`${upstream.url}/health`)).rejects.toThrow();
  });

  it("rejects invalid options before listening", async () => {
    await expect(startUpstream({ parallel: 0 })).rejects.toThrow(
      "Expected `parallel` to be an integer from 1 to 100000, got `0` (number)",
    );
  });
});
