import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstream, type Upstream } from "./server.js";

let sim: Upstream;
let client: OpenAI;
const messages = [{ role: "user" as const, content: "Say something, please." }]; // 22 characters: 6 tokens

beforeAll(async () => {
  sim = await startUpstream({
    model: "sim-model",
    ttftMs: 1,
    prefillMsPerToken: 0,
    tokenMs: 0.5,
    defaultMaxTokens: 6,
  });
  client = new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: "x", maxRetries: 0 });
});

afterAll(async () => {
  await sim.close();
});

describe("with the official openai client", () => {
  it("lists the model", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(["sim-model"]);
  });

  it("answers a chat completion", async () => {
    const completion = await client.chat.completions.create({ model: "sim-model", messages });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]?.message.role).toBe("assistant");
    expect(completion.choices[0]?.message.content?.split(" ")).toHaveLength(6);
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage).toEqual({ prompt_tokens: 6, completion_tokens: 6, total_tokens: 12 });
  });

  it("streams a chat completion: role first, finish_reason last, then usage", async () => {
    const stream = await client.chat.completions.create({
      model: "sim-model",
      messages,
      max_tokens: 5,
      seed: 11,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk")).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    const contentChunks = chunks.filter((chunk) => chunk.choices[0]?.delta.content);
    expect(contentChunks).toHaveLength(5);
    const finish = chunks.at(-2);
    expect(finish?.choices[0]?.finish_reason).toBe("length");
    expect(finish?.choices[0]?.delta).toEqual({});
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({ prompt_tokens: 6, completion_tokens: 5, total_tokens: 11 });

    const streamed = contentChunks.map((chunk) => chunk.choices[0]?.delta.content).join("");
    const whole = await client.chat.completions.create({
      model: "sim-model",
      messages,
      max_tokens: 5,
      seed: 11,
    });
    expect(streamed).toBe(whole.choices[0]?.message.content);
  });

  it("sends no usage chunk unless asked", async () => {
    const stream = await client.chat.completions.create({ model: "sim-model", messages, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.every((chunk) => chunk.usage === undefined)).toBe(true);
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content)).toHaveLength(6);
  });

  it.each([1, 17, 40])("honours max_tokens = %i when streaming", async (maxTokens) => {
    const stream = await client.chat.completions.create({
      model: "sim-model",
      messages,
      max_tokens: maxTokens,
      stream: true,
    });
    let content = 0;
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) content += 1;
    expect(content).toBe(maxTokens);
  });

  it("honours max_completion_tokens", async () => {
    const completion = await client.chat.completions.create({
      model: "sim-model",
      messages,
      max_completion_tokens: 3,
    });
    expect(completion.usage?.completion_tokens).toBe(3);
    expect(completion.choices[0]?.finish_reason).toBe("length");
  });

  it("answers and streams legacy text completions", async () => {
    const completion = await client.completions.create({
      model: "sim-model",
      prompt: "Once upon",
      max_tokens: 4,
    });
    expect(completion.object).toBe("text_completion");
    expect(completion.choices[0]?.text.split(" ")).toHaveLength(4);
    expect(completion.usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });

    const stream = await client.completions.create({
      model: "sim-model",
      prompt: "Once upon",
      max_tokens: 4,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.filter((chunk) => chunk.choices[0]?.text)).toHaveLength(4);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("length");
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(4);
  });

  it("surfaces a 400 as BadRequestError", async () => {
    const error = await client.chat.completions
      .create({ model: "sim-model", messages: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("invalid_value");
  });
});
