import { afterEach, describe, expect, it } from "vitest";
import { advance, ok, scripted, setup } from "../test/helpers.js";
import type { ServedBatches } from "./create.js";
import { BATCH_ENDPOINTS } from "./create-options.js";
import { openaiExecutor } from "./executor.js";

let open: ServedBatches | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

function start() {
  const made = setup(scripted(ok).execute, { tenant: () => "t" });
  open = made.batches;
  return made;
}

const item = (extra: Record<string, unknown>) => ({ customId: "a", url: "/v1/chat/completions", ...extra });

const ESCAPES = [
  "/v1/../admin",
  "/v1/chat/completions/../../admin",
  "/v1/%2e%2e/admin",
  "/v1/%2E%2E/admin",
  "/v1/.%2e/admin",
  "/v1\\..\\admin",
  "/v1/./chat/completions",
  "/v1/chat/completions?x=../../admin",
  "/admin",
  "//evil.test/v1/chat/completions",
];

describe("batch items: only POST, only the Batch API's endpoints", () => {
  it("refuses GET, DELETE, PUT and PATCH items in create()", async () => {
    const { batches } = start();
    for (const method of ["GET", "DELETE", "PUT", "PATCH", "HEAD", "post2"]) {
      await expect(batches.create({ items: [item({ method })] }), method).rejects.toThrow(
        `Expected \`items[0].method\` to be "POST" (the only method of a batch item), got \`${method}\``,
      );
    }
    await expect(batches.create({ items: [item({ method: "post" })] })).resolves.toMatchObject({
      status: "in_progress",
    });
  });

  it("refuses a url that is not exactly an allowed endpoint, dot segments and their encodings included, with or without `endpoint`", async () => {
    const { batches, runs } = start();
    for (const url of ESCAPES) {
      await expect(batches.create({ items: [item({ url })] }), url).rejects.toThrow("`items[0].url`");
    }
    await expect(batches.create({ items: [item({})], endpoint: "/v1/../admin" })).rejects.toThrow(
      "Expected `endpoint` to be one of /v1/responses",
    );
    expect(runs).toEqual([]);
    for (const url of BATCH_ENDPOINTS) {
      const batch = await batches.create({ items: [item({ url })], endpoint: url });
      expect(batch.endpoint).toBe(url);
    }
  });

  it("refuses such lines in an uploaded file, and names line and param in a batch's errors", async () => {
    const { batches, clock } = start();
    const upload = async (lines: object[]) => {
      const form = new FormData();
      form.append("file", new Blob([lines.map((l) => JSON.stringify(l)).join("\n")]), "in.jsonl");
      form.append("purpose", "batch");
      return batches.fetch(new Request("http://g.test/v1/files", { method: "POST", body: form }));
    };
    const line = (extra: object) => ({
      custom_id: "a",
      method: "POST",
      url: "/v1/embeddings",
      body: {},
      ...extra,
    });
    const refused = await upload([
      line({}),
      line({ custom_id: "b", method: "DELETE" }),
      line({ custom_id: "c", url: "/v1/../admin" }),
    ]);
    expect(refused.status).toBe(400);
    const { message } = (await refused.json()).error as { message: string };
    expect(message).toContain('Line 2: Expected `line 2.method` to be "POST"');
    expect(message).toContain("Line 3: Expected `line 3.url` to be one of");
    const file = (await (await upload([line({})])).json()) as { id: string };
    const created = await batches.fetch(
      new Request("http://g.test/v1/batches", {
        method: "POST",
        body: JSON.stringify({
          input_file_id: file.id,
          endpoint: "/v1/chat/completions",
          completion_window: "24h",
        }),
      }),
    );
    await advance(clock, 10);
    const batch = (await created.json()) as { status: string; errors: { data: object[] } };
    expect(batch.status).toBe("failed");
    expect(batch.errors.data).toEqual([
      {
        code: "invalid_request",
        message: expect.stringContaining("Line 1: Expected `line 1.url` to be the batch's endpoint"),
        param: "url",
        line: 1,
      },
    ]);
  });
});

describe("openaiExecutor: a path that could leave baseURL is never sent", () => {
  it("answers a final 400 itself for dot segments, backslashes and encoded separators", async () => {
    const sent: string[] = [];
    const execute = openaiExecutor({
      baseURL: "http://upstream.test/v1",
      fetch: async (url) => {
        sent.push(String(url));
        return new Response("{}");
      },
    });
    const signal = new AbortController().signal;
    for (const url of ESCAPES.filter((u) => u !== "/admin")) {
      const answer = await execute({
        item: { index: 0, customId: "a", method: "POST", url, body: null },
        batchId: "b",
        attempt: 1,
        signal,
      });
      expect(answer.status, url).toBe(400);
    }
    expect(sent).toEqual([]);
    const fine = await execute({
      item: { index: 0, customId: "a", method: "POST", url: "/v1/chat/completions", body: {} },
      batchId: "b",
      attempt: 1,
      signal,
    });
    expect(fine.status).toBe(200);
    expect(sent).toEqual(["http://upstream.test/v1/chat/completions"]);
  });
});
