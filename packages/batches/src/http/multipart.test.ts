import { describe, expect, it } from "vitest";
import { LimitError, lines } from "./jsonl.js";
import { boundaryOf, MultipartError, multipartParts } from "./multipart.js";

async function encoded(text: string): Promise<{ bytes: Uint8Array; boundary: string }> {
  const form = new FormData();
  form.append("purpose", "batch");
  form.append("file", new Blob([text]), "in.jsonl");
  const request = new Request("http://x/", { method: "POST", body: form });
  return {
    bytes: new Uint8Array(await request.arrayBuffer()),
    boundary: boundaryOf(request.headers.get("content-type"))!,
  };
}

function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) controller.close();
      else {
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
      }
    },
  });
}

async function parse(stream: ReadableStream<Uint8Array>, boundary: string) {
  const found: Record<string, string[]> = {};
  for await (const part of multipartParts(stream, boundary)) {
    const got: string[] = [];
    for await (const line of lines(part.body, { maxFileBytes: 1e6, maxLineBytes: 1e4 }))
      got.push(`${line.number}:${line.text}`);
    found[part.name] = got;
  }
  return found;
}

describe("streamed multipart and JSONL", () => {
  it("gives the same parts and numbered lines whatever the chunk sizes", async () => {
    const text = '{"a":1}\r\n\n{"b":"é ünïcode"}\n{"c":3}';
    const { bytes, boundary } = await encoded(text);
    const expected = { purpose: ["1:batch"], file: ['1:{"a":1}', '3:{"b":"é ünïcode"}', '4:{"c":3}'] };
    for (const size of [1, 2, 3, 7, 64, 100_000]) {
      expect(await parse(chunked(bytes, size), boundary), `chunks of ${size}`).toEqual(expected);
    }
  });

  it("fails clearly on a truncated body, a long line and a big file", async () => {
    const { bytes, boundary } = await encoded('{"a":1}\n');
    await expect(parse(chunked(bytes.slice(0, bytes.length - 20), 5), boundary)).rejects.toBeInstanceOf(
      MultipartError,
    );
    const long = (async function* () {
      yield new TextEncoder().encode("x".repeat(100));
    })();
    const tooLong = lines(long, { maxFileBytes: 1e6, maxLineBytes: 50 }).next();
    await expect(tooLong).rejects.toThrow("Line 1 is longer than the limit of 50 bytes");
    const big = (async function* () {
      yield new TextEncoder().encode("{}\n".repeat(100));
    })();
    const error = await lines(big, { maxFileBytes: 10, maxLineBytes: 50 })
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimitError);
    expect((error as LimitError).status).toBe(413);
  });
});
