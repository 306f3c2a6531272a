import { afterEach, describe, expect, it } from "vitest";
import { ok, scripted, setup } from "../../test/helpers.js";
import type { ServedBatches } from "../create.js";

let open: ServedBatches | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const MB = 1_048_576;

/** A body of `total` bytes made on demand in 64 KB chunks; `pulled` counts what the reader took. */
function generated(total: number, first = "") {
  const chunk = new Uint8Array(65_536).fill(0x20);
  const state = { pulled: 0 };
  const head = new TextEncoder().encode(first);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled >= total) return controller.close();
      const next = state.pulled === 0 && head.length > 0 ? head : chunk;
      state.pulled += next.length;
      controller.enqueue(next);
    },
  });
  return { body, state };
}

function post(path: string, body: ReadableStream<Uint8Array>, headers: Record<string, string>): Request {
  return new Request(`http://gateway.test/v1${path}`, {
    method: "POST",
    body,
    headers: { authorization: "Bearer k", ...headers },
    duplex: "half",
  } as RequestInit);
}

function start(extra: Record<string, unknown> = {}) {
  const made = setup(scripted(ok).execute, { tenant: () => "t", ...extra });
  open = made.batches;
  return made.batches;
}

describe("request bodies are bounded before they are read", () => {
  it("refuses a 100 MB JSON body to POST /v1/batches after reading about 1 MB of it", async () => {
    const batches = start();
    const { body, state } = generated(100 * MB, '{"input_file_id":"');
    const before = process.memoryUsage().heapUsed;
    const answer = await batches.fetch(post("/batches", body, { "content-type": "application/json" }));
    expect(answer.status).toBe(413);
    expect((await answer.json()).error).toMatchObject({
      type: "invalid_request_error",
      code: "request_too_large",
      message: `The request body is larger than the limit of ${MB} bytes.`,
    });
    expect(state.pulled).toBeLessThanOrEqual(MB + 3 * 65_536);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * MB);
  });

  it("refuses a declared length over the limit without reading a byte", async () => {
    const batches = start({ maxBodyBytes: 4_096 });
    const { body, state } = generated(100 * MB);
    const answer = await batches.fetch(
      post("/batches", body, { "content-type": "application/json", "content-length": String(100 * MB) }),
    );
    expect(answer.status).toBe(413);
    expect(state.pulled).toBeLessThanOrEqual(65_536); // at most what the stream queued on its own
  });

  it("counts an upload's bytes, a part that is not the file included", async () => {
    const batches = start({ maxFileBytes: MB });
    const boundary = "b0undary";
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="junk"\r\n\r\n`;
    const { body, state } = generated(100 * MB, head);
    const answer = await batches.fetch(
      post("/files", body, { "content-type": `multipart/form-data; boundary=${boundary}` }),
    );
    expect(answer.status).toBe(413);
    expect((await answer.json()).error.message).toContain("larger than the limit");
    expect(state.pulled).toBeLessThanOrEqual(MB + 65_536 + 3 * 65_536);
    const declared = generated(100 * MB);
    const refused = await batches.fetch(
      post("/files", declared.body, {
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(2 * MB),
      }),
    );
    expect(refused.status).toBe(413);
    expect(declared.state.pulled).toBeLessThanOrEqual(65_536);
  });

  it("takes `maxBodyBytes` from 1 KB to 64 MB", () => {
    for (const bad of [0, 1_023, 67_108_865, 1.5, "1mb"]) {
      expect(() => setup(scripted(ok).execute, { maxBodyBytes: bad as never }), String(bad)).toThrow(
        "Expected `maxBodyBytes` to be an integer from 1024 to 67108864",
      );
    }
  });
});
