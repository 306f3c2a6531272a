import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startUpstream } from "@llm-scheduler/upstream-sim";
import { afterEach, describe, expect, it } from "vitest";
import { checkUpstream, DemoError } from "./preflight.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server that answers every request with `status` and `body`, or never when `status` is 0. */
async function answering(status: number, body = "{}"): Promise<string> {
  server = createServer((_req, res) => {
    if (status !== 0) res.writeHead(status, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function failure(url: string, options = {}): Promise<DemoError> {
  const error = await checkUpstream(url, options).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(DemoError);
  return error as DemoError;
}

describe("checkUpstream", () => {
  it("passes a server that lists the model, and Ollama's name:latest for name", async () => {
    const sim = await startUpstream({ model: "llama3.2:latest" });
    try {
      await expect(checkUpstream(sim.url, { model: "llama3.2:latest" })).resolves.toBeUndefined();
      await expect(checkUpstream(sim.url, { model: "llama3.2" })).resolves.toBeUndefined();
      expect((await failure(sim.url, { model: "qwen" })).message).toContain(
        "pass --model with one of: llama3.2:latest",
      );
    } finally {
      await sim.close();
    }
  });

  it("says the key was refused on 401, without echoing it", async () => {
    const url = await answering(401);
    const error = await failure(url, { key: "sk-secret-123" });
    expect(error.message).toContain("set UPSTREAM_API_KEY");
    expect(error.message).not.toContain("sk-secret-123");
  });

  it("says what answered when it is not an OpenAI-compatible server", async () => {
    const url = await answering(404);
    expect((await failure(url)).message).toContain("answered GET /v1/models with HTTP 404");
  });

  it("gives up on a server that never answers, after the timeout", async () => {
    const url = await answering(0);
    const error = await failure(url, { timeoutMs: 50 });
    expect(error.message).toContain("no answer in time");
  });

  it("accepts a server whose model list it cannot read", async () => {
    const url = await answering(200, "not json");
    await expect(checkUpstream(url, { model: "anything" })).resolves.toBeUndefined();
  });
});
