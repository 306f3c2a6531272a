import { request as httpRequest } from "node:http";
import { createBatches, MemoryBatchStore } from "@llm-scheduler/batches";
import { createScheduler } from "@llm-scheduler/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveBatches } from "./big-file.js";

const MB = 1_048_576;
const scheduler = createScheduler({ maxConcurrency: 1 });
const batches = createBatches({
  scheduler,
  store: new MemoryBatchStore(),
  execute: async () => ({ status: 200, body: null }),
  maxInFlight: 0,
  tenant: () => "t",
  maxFileBytes: MB,
});
let served: Awaited<ReturnType<typeof serveBatches>>;
beforeAll(async () => {
  served = await serveBatches(batches);
});
afterAll(async () => {
  served.server.close();
  await batches.close();
  await scheduler.close();
});

/**
 * POSTs up to `total` bytes of spaces to `path` with a real client, writing only while the server
 * reads; resolves with the status, the body and how many bytes the client managed to write.
 */
function post(path: string, total: number, headers: Record<string, string>, first = "") {
  return new Promise<{ status: number; body: string; written: number }>((resolve, reject) => {
    const chunk = Buffer.alloc(65_536, 0x20);
    let written = 0;
    let answered = false;
    const request = httpRequest(`${served.url}${path}`, { method: "POST", headers }, (response) => {
      answered = true;
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (text: string) => {
        body += text;
      });
      response.on("end", () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body, written });
      });
    });
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    if (first !== "") request.write(first);
    const write = (): void => {
      while (!answered && written < total) {
        written += chunk.length;
        if (!request.write(chunk)) {
          request.once("drain", write);
          return;
        }
      }
      if (!answered) request.end();
    };
    write();
  });
}

describe("bodies bounded over real HTTP (nodeListener)", () => {
  it("answers a 100 MB JSON body with 413 after about 1 MB, whether its length is declared or not", async () => {
    const before = process.memoryUsage().rss;
    const json = { "content-type": "application/json" };
    const counted = await post("/v1/batches", 100 * MB, { ...json, "transfer-encoding": "chunked" });
    const declared = await post("/v1/batches", 100 * MB, { ...json, "content-length": String(100 * MB) });
    console.log(
      `written before the 413: ${(counted.written / MB).toFixed(1)} MB counted, ${(declared.written / MB).toFixed(1)} MB declared; RSS +${((process.memoryUsage().rss - before) / MB).toFixed(0)} MB`,
    );
    for (const answer of [counted, declared]) {
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error).toMatchObject({
        code: "request_too_large",
        type: "invalid_request_error",
      });
      expect(answer.written).toBeLessThan(32 * MB); // what the sockets buffered before the answer came
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(128 * MB);
  });

  it("answers an upload past maxFileBytes with 413 as its bytes are counted, a form part that is not the file included", async () => {
    const boundary = "b0undary";
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="junk"\r\n\r\n`;
    const type = { "content-type": `multipart/form-data; boundary=${boundary}` };
    const counted = await post("/v1/files", 100 * MB, { ...type, "transfer-encoding": "chunked" }, head);
    const declared = await post("/v1/files", 100 * MB, { ...type, "content-length": String(100 * MB) }, head);
    for (const answer of [counted, declared]) {
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error).toMatchObject({ param: "file", type: "invalid_request_error" });
      expect(answer.written).toBeLessThan(32 * MB);
    }
  });
});
