import OpenAI from "openai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startUpstream, type Upstream, type UpstreamOptions } from "./index.js";

/** Poll often: the default 50 ms interval would make these tests slow. */
const poll = { timeout: 2000, interval: 2 };

let sim: Upstream | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: UpstreamOptions = {}): Promise<{ upstream: Upstream; client: OpenAI }> {
  sim = await startUpstream({ ttftMs: 1, prefillMsPerToken: 0, tokenMs: 1, defaultMaxTokens: 4, ...options });
  return { upstream: sim, client: new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: "x", maxRetries: 0 }) };
}

const body = { model: "sim-model", messages: [{ role: "user" as const, content: "Hi" }] };
const fault = (kind: string) => ({ headers: { "x-sim-fault": kind } });

describe("fault injection", () => {
  it("answers 429 with Retry-After", async () => {
    const { upstream, client } = await start({ retryAfterSeconds: 2 });
    const error = await client.chat.completions.create(body, fault("429")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimit = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.headers.get("retry-after")).toBe("2");
    expect(rateLimit.headers.get("retry-after-ms")).toBe("2000");
    expect(rateLimit.code).toBe("rate_limit_exceeded");
    expect(upstream.stats()).toMatchObject({ byStatus: { 429: 1 }, faults: { 429: 1 }, maxInFlightSeen: 0 });
  });

  it("answers 500", async () => {
    const { upstream, client } = await start();
    const error = await client.chat.completions.create(body, fault("500")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(upstream.stats().byStatus).toEqual({ 500: 1 });
  });

  it("hangs until the client aborts, then frees the sequence", async () => {
    const { upstream, client } = await start({ parallel: 1 });
    const controller = new AbortController();
    const hung = client.chat.completions.create(body, { ...fault("hang"), signal: controller.signal });
    await vi.waitFor(() => expect(upstream.stats().inFlight).toBe(1), poll);
    controller.abort();
    await expect(hung).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
    await vi.waitFor(() => expect(upstream.stats()).toMatchObject({ inFlight: 0, cancelled: 1 }), poll);
    const next = await client.chat.completions.create(body);
    expect(next.choices[0]?.finish_reason).toBe("stop");
    expect(upstream.stats()).toMatchObject({ served: 1, faults: { hang: 1 } });
  });

  it("makes a slow request take at least slowFactor times the model's time", async () => {
    const { upstream, client } = await start({ ttftMs: 0, tokenMs: 1, slowFactor: 20 });
    const started = performance.now();
    const completion = await client.chat.completions.create({ ...body, max_tokens: 10 }, fault("slow"));
    const elapsed = performance.now() - started;
    expect(completion.usage?.completion_tokens).toBe(10);
    expect(elapsed).toBeGreaterThanOrEqual(0.9 * 20 * upstream.latency.requestMs(1, 10, 1));
    expect(upstream.stats().faults.slow).toBe(1);
  });

  it("draws faults from the rates, and setFaults changes them at run time", async () => {
    const { upstream, client } = await start({ faults: { 500: 1 } });
    await expect(client.chat.completions.create(body)).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    upstream.setFaults({ 429: 1 });
    await expect(client.chat.completions.create(body)).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    upstream.setFaults({});
    await expect(client.chat.completions.create(body)).resolves.toMatchObject({ object: "chat.completion" });
    expect(() => upstream.setFaults({ hang: 2 })).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION" }),
    );
    const forced = await client.chat.completions.create(body, fault("none"));
    expect(forced.object).toBe("chat.completion");
  });

  it("answers 400 to an unknown fault header", async () => {
    const { client } = await start();
    const error = await client.chat.completions.create(body, fault("teapot")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("lets the client's own retry honour retry-after-ms", async () => {
    const { upstream } = await start({ retryAfterSeconds: 0.005, seed: 1 });
    const retrying = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: "x", maxRetries: 5 });
    upstream.setFaults({ 429: 0.5 });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => retrying.chat.completions.create(body)),
    );
    expect(results).toHaveLength(6);
    expect(upstream.stats().byStatus[429]).toBeGreaterThan(0);
  });
});

describe("targeted faults (fault rules and x-sim-fault-times)", () => {
  it("fails the first K attempts of one item with 429 + Retry-After, then serves it, through the client's own retries", async () => {
    const { upstream } = await start({
      faultRules: [{ fault: "429", times: 2, promptIncludes: "item q-7", retryAfterSeconds: 0.01 }],
    });
    const client = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: "x", maxRetries: 3 });
    const ask = (id: string) =>
      client.chat.completions.create({ ...body, messages: [{ role: "user", content: `item ${id}` }] });
    const [seven, eight] = await Promise.all([ask("q-7"), ask("q-8")]);
    expect(seven.object).toBe("chat.completion");
    expect(eight.object).toBe("chat.completion");
    expect(upstream.stats()).toMatchObject({ byStatus: { 200: 2, 429: 2 }, faults: { 429: 2 }, served: 2 });
  });

  it("fails with 500, or hangs, the first attempt of a key given by header, then serves it", async () => {
    const { upstream, client } = await start();
    const headers = { "x-sim-fault": "500", "x-sim-fault-times": "1", "x-sim-fault-key": "job-1" };
    await expect(client.chat.completions.create(body, { headers })).rejects.toBeInstanceOf(
      OpenAI.InternalServerError,
    );
    await expect(client.chat.completions.create(body, { headers })).resolves.toMatchObject({
      object: "chat.completion",
    });
    upstream.setFaultRules([{ fault: "hang", key: "job-2" }]);
    const controller = new AbortController();
    const hung = client.chat.completions.create(body, {
      headers: { "x-sim-fault-key": "job-2" },
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(upstream.stats().faults.hang).toBe(1), poll);
    controller.abort();
    await expect(hung).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
    const again = await client.chat.completions.create(body, { headers: { "x-sim-fault-key": "job-2" } });
    expect(again.object).toBe("chat.completion");
    expect(() => upstream.setFaultRules([{ fault: "429", times: -1 }])).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION" }),
    );
  });
});
