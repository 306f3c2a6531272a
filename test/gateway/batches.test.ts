import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAT_KEY, ETL_KEY, type Harness, PRIORITIES, startGateway, until } from "./harness.js";

/** The Files and Batches API through the gateway with the official client; each item's model picks its scheduler. */
let h: Harness;

beforeAll(async () => {
  h = await startGateway(
    (sims) => ({
      models: {
        chat: { upstreams: [sims[0]!.url], maxConcurrency: 2, priorities: PRIORITIES },
        other: { upstreams: [sims[1]!.url], maxConcurrency: 2, priorities: PRIORITIES },
      },
      keys: [
        { key: ETL_KEY, tenant: "etl", priority: "batch" },
        { key: CHAT_KEY, tenant: "chat-app", priority: "interactive" },
      ],
    }),
    2,
  );
});
afterAll(() => h.close());

const line = (id: string, model: string) =>
  JSON.stringify({
    custom_id: id,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model, messages: [{ role: "user", content: "Hi" }], max_tokens: 3 },
  });

describe("batches through the gateway", () => {
  it("runs a batch to its end, each item on its model's servers, and serves its output to its tenant only", async () => {
    const etl = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: ETL_KEY, maxRetries: 0 });
    const text = [line("a", "chat"), line("b", "other"), line("c", "chat"), line("d", "nope")].join("\n");
    const file = await etl.files.create({
      file: await toFile(Buffer.from(text), "in.jsonl"),
      purpose: "batch",
    });
    const created = await etl.batches.create({
      input_file_id: file.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    let batch = created;
    await until(async () => {
      batch = await etl.batches.retrieve(created.id);
      return batch.status === "completed";
    }, 30_000);
    expect(batch.request_counts).toMatchObject({ total: 4, completed: 3, failed: 1 });
    const output = await (await etl.files.content(batch.output_file_id!)).text();
    const results = output
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as { custom_id: string; response: { status_code: number; body: { model?: string } } },
      );
    const byId = new Map(results.map((r) => [r.custom_id, r.response]));
    expect(byId.get("a")?.status_code).toBe(200);
    expect(byId.get("b")?.body.model).toBe("other");
    expect(h.sims[1]!.stats().served).toBe(1);
    expect(h.sims[0]!.stats().served).toBe(2);
    const errors =
      batch.error_file_id === null ? "" : await (await etl.files.content(batch.error_file_id!)).text();
    expect(`${output}${errors}`).toContain("model_not_found");

    const chat = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: CHAT_KEY, maxRetries: 0 });
    await expect(chat.batches.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const stranger = new OpenAI({
      baseURL: `${h.url}/v1`,
      apiKey: "sk-unknown-unknown-unknown",
      maxRetries: 0,
    });
    await expect(stranger.batches.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
