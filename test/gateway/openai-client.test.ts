import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAT_KEY, ETL_KEY, type Harness, PRIORITIES, startGateway } from "./harness.js";

/**
 * The official `openai` client against the gateway, in front of upstream simulators: chat (streaming and
 * not), completions, embeddings, the models list, and the errors it raises for OpenAI's statuses.
 */
let h: Harness;
let client: OpenAI;

beforeAll(async () => {
  h = await startGateway(
    (sims) => ({
      models: {
        // one base URL with /v1, one without: both are served
        chat: { upstreams: [`${sims[0]!.url}/v1`, sims[1]!.url], maxConcurrency: 1, priorities: PRIORITIES },
        embed: { upstreams: [`${sims[2]!.url}/v1/`], maxConcurrency: 2, priorities: PRIORITIES },
      },
      keys: [
        { key: CHAT_KEY, tenant: "chat-app", priority: "interactive" },
        { key: ETL_KEY, tenant: "etl", priority: "batch", maxConcurrency: 8 },
      ],
    }),
    3,
    { tokenMs: 10 },
  );
  client = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: CHAT_KEY, maxRetries: 0 });
});
afterAll(() => h.close());

describe("the gateway with the official openai client", () => {
  it("answers a chat completion, and streams one to its end", async () => {
    const answer = await client.chat.completions.create({
      model: "chat",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 4,
    });
    expect(answer.choices[0]?.message.content?.split(" ")).toHaveLength(4);
    const stream = await client.chat.completions.create({
      model: "chat",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 5,
      stream: true,
    });
    let words = "";
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      words += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(words.trim().split(" ")).toHaveLength(5);
    expect(finish).toBe("length");
  });

  it("answers completions and embeddings", async () => {
    const completion = await client.completions.create({ model: "chat", prompt: "Say", max_tokens: 3 });
    expect(completion.choices[0]?.text.trim().split(" ")).toHaveLength(3);
    const embedding = await client.embeddings.create({ model: "embed", input: ["one", "two"] });
    expect(embedding.data).toHaveLength(2);
    expect(embedding.data[0]?.embedding.length).toBeGreaterThan(0);
  });

  it("lists the configured models", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids.sort()).toEqual(["chat", "embed"]);
  });

  it("answers an unknown model with OpenAI's 404 and a wrong key with 401", async () => {
    const unknown = client.chat.completions.create({
      model: "gpt-9",
      messages: [{ role: "user", content: "x" }],
    });
    await expect(unknown).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(unknown).rejects.toMatchObject({ status: 404, code: "model_not_found", param: "model" });
    const stranger = new OpenAI({
      baseURL: `${h.url}/v1`,
      apiKey: "sk-not-a-key-of-this-gateway",
      maxRetries: 0,
    });
    await expect(stranger.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const wrong = stranger.chat.completions.create({
      model: "chat",
      messages: [{ role: "user", content: "x" }],
    });
    await expect(wrong).rejects.toMatchObject({ status: 401, code: "invalid_api_key" });
  });

  it("keeps each server of a model at its maxConcurrency and uses both", async () => {
    for (const sim of h.sims) sim.resetStats();
    await Promise.all(
      Array.from({ length: 8 }, () =>
        client.chat.completions.create({
          model: "chat",
          messages: [{ role: "user", content: "Hi" }],
          max_tokens: 5,
        }),
      ),
    );
    const [first, second] = h.sims.map((sim) => sim.stats());
    expect(first!.maxInFlightSeen).toBe(1);
    expect(second!.maxInFlightSeen).toBe(1);
    expect(first!.served + second!.served).toBe(8);
    expect(first!.served).toBeGreaterThan(0);
    expect(second!.served).toBeGreaterThan(0);
  });

  it("logs one access line per request, with tenant, model, priority and times, never the key or the prompt", async () => {
    const marker = "a-prompt-that-must-not-be-logged";
    await client.chat.completions.create({
      model: "chat",
      messages: [{ role: "user", content: marker }],
      max_tokens: 2,
    });
    const etl = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: ETL_KEY, maxRetries: 0 });
    await etl.chat.completions.create({
      model: "chat",
      messages: [{ role: "user", content: "x" }],
      max_tokens: 2,
    });
    const lines = h.lines().filter((line) => line.msg === "request" && line.status === 200);
    const last = lines.at(-1)!;
    expect(last).toMatchObject({ tenant: "etl", model: "chat", priority: "batch", outcome: "completed" });
    expect(typeof last.waitMs).toBe("number");
    expect(typeof last.ttfbMs).toBe("number");
    expect(typeof last.id).toBe("string");
    expect(h.logText()).not.toContain(marker);
    expect(h.logText()).not.toContain(CHAT_KEY);
    expect(h.logText()).not.toContain(ETL_KEY);
  });
});
