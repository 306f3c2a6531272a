import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runtimesFor, start, stopStarted } from "./start.js";

/** `createGateway()` served by Bun and Deno themselves, with the official client against it. */
const KEY = "sk-edge-0123456789abcdef0123456789abcdef";
let sim: Upstream;
beforeAll(async () => {
  sim = await startUpstream({ port: 0, ttftMs: 5, tokenMs: 2 });
});
afterAll(() => sim.close());
afterEach(stopStarted);

describe.each(runtimesFor("gateway-server.ts"))("the gateway under %s", (_name, binary, args) => {
  it("is ready, streams and answers chat completions, and refuses unknown keys and models", async () => {
    const url = await start(binary, args, { UPSTREAM_URL: sim.url, GATEWAY_KEY: KEY });
    const deadline = Date.now() + 10_000;
    while ((await fetch(`${url}/readyz`)).status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: KEY, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: "sim",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 3,
    });
    expect(answer.choices[0]?.message.content?.split(" ")).toHaveLength(3);
    const stream = await client.chat.completions.create({
      model: "sim",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 4,
      stream: true,
    });
    let words = "";
    for await (const chunk of stream) words += chunk.choices[0]?.delta.content ?? "";
    expect(words.trim().split(" ")).toHaveLength(4);
    await expect(client.chat.completions.create({ model: "x", messages: [] })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    const stranger = new OpenAI({ baseURL: `${url}/v1`, apiKey: "sk-someone-else-entirely", maxRetries: 0 });
    await expect(stranger.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
