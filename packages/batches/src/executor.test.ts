import { isSchedulerError } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { openaiExecutor } from "./executor.js";
import type { ExecuteContext } from "./types.js";

const context = (url: string): ExecuteContext => ({
  item: { index: 0, customId: "a", method: "POST", url, body: { model: "m" } },
  batchId: "batch_1",
  attempt: 1,
  signal: new AbortController().signal,
});

describe("openaiExecutor", () => {
  it("posts the body to baseURL + the item's path with the key, and returns status, JSON body and headers", async () => {
    const seen: Array<{ url: string; init: RequestInit }> = [];
    const execute = openaiExecutor({
      baseURL: "http://127.0.0.1:9/v1",
      apiKey: "sk-secret",
      fetch: async (url, init) => {
        seen.push({ url: String(url), init: init! });
        return new Response('{"ok":true}', { status: 201, headers: { "x-request-id": "r1" } });
      },
    });
    const result = await execute(context("/v1/chat/completions"));
    expect(seen[0]!.url).toBe("http://127.0.0.1:9/v1/chat/completions");
    expect((seen[0]!.init.headers as Record<string, string>).authorization).toBe("Bearer sk-secret");
    expect(seen[0]!.init.body).toBe('{"model":"m"}');
    expect(result).toMatchObject({ status: 201, body: { ok: true }, headers: { "x-request-id": "r1" } });
  });

  it("turns a connection failure into an error that never contains the key", async () => {
    const execute = openaiExecutor({
      baseURL: "http://127.0.0.1:9/v1",
      apiKey: "sk-secret",
      fetch: async () => {
        throw new TypeError("fetch failed: Bearer sk-secret", { cause: { code: "ECONNREFUSED" } });
      },
    });
    const error = await execute(context("/v1/chat/completions")).catch((e: unknown) => e);
    expect((error as Error).message).toBe("Connection to the upstream failed (ECONNREFUSED)");
  });

  it("rejects invalid options without echoing the key", () => {
    expect(() => openaiExecutor({ baseURL: "nope" })).toThrow("`baseURL`");
    const error = (() => {
      try {
        openaiExecutor({ baseURL: "http://x/v1", apiKey: 42 as never });
      } catch (e) {
        return e;
      }
    })();
    expect(isSchedulerError(error, "INVALID_OPTION")).toBe(true);
    expect(() => openaiExecutor({ baseURL: "http://x/v1", apikey: "k" } as never)).toThrow(
      "did you mean `apiKey`",
    );
  });
});
