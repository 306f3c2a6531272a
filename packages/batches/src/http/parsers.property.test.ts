import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lines } from "./jsonl.js";
import { multipartParts } from "./multipart.js";

const encoder = new TextEncoder();

/** `bytes` cut at the given points (any order, repeats and out-of-range points ignored). */
function cut(bytes: Uint8Array, points: readonly number[]): Uint8Array[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    if (to > from) chunks.push(bytes.slice(from, to));
    from = Math.max(from, to);
  }
  return chunks;
}

async function* iterate(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

function stream(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

/** What a JSONL reader must find: numbered non-blank lines, then the first line past the limit. */
function expected(text: string, maxLineBytes: number) {
  const found: string[] = [];
  const pieces = text.split("\n");
  if (pieces[pieces.length - 1] === "") pieces.pop();
  for (const [i, piece] of pieces.entries()) {
    if (encoder.encode(piece).length > maxLineBytes) {
      return { found, error: `Line ${i + 1} is longer than the limit of ${maxLineBytes} bytes` };
    }
    const line = piece.endsWith("\r") ? piece.slice(0, -1) : piece;
    if (line.trim() !== "") found.push(`${i + 1}:${line}`);
  }
  return { found, error: undefined };
}

async function read(chunks: readonly Uint8Array[], maxLineBytes: number) {
  const found: string[] = [];
  try {
    for await (const line of lines(iterate(chunks), { maxFileBytes: 1e9, maxLineBytes })) {
      found.push(`${line.number}:${line.text}`);
    }
  } catch (error) {
    return { found, error: (error as Error).message };
  }
  return { found, error: undefined };
}

const unit = fc.constantFrom("a", "{", "}", '"', " ", "\t", "\r", "é", "€", "😀", "\u2028", "0");
const text = fc
  .array(fc.tuple(fc.string({ unit, maxLength: 12 }), fc.constantFrom("\n", "\r\n")), { maxLength: 12 })
  .chain((pairs) =>
    fc.constantFrom(
      pairs.map(([line, end]) => line + end).join(""),
      pairs.map(([line, end], i) => (i === pairs.length - 1 ? line : line + end)).join(""),
    ),
  );

describe("the JSONL reader, property-tested", () => {
  it("finds the same numbered lines, and the same first line past the limit, however the bytes are cut", async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.integer({ min: 1, max: 40 }),
        async (input, points, maxLineBytes) => {
          const bytes = encoder.encode(input);
          expect(await read(cut(bytes, points), maxLineBytes)).toEqual(expected(input, maxLineBytes));
        },
      ),
      { numRuns: 400 },
    );
  });
});

const boundary = fc.stringMatching(/^[A-Za-z0-9'()+_,.:=?-]{1,40}$/);

/** A file's bytes, often with pieces of the boundary's delimiter inside, never the whole of it. */
function content(delimiter: Uint8Array) {
  const piece = fc.oneof(
    fc.uint8Array({ maxLength: 16 }),
    fc.integer({ min: 1, max: delimiter.length - 1 }).map((n) => delimiter.slice(0, n)),
    fc.constant(encoder.encode("\r\n")),
  );
  return fc
    .array(piece, { maxLength: 10 })
    .map((pieces) => new Uint8Array(pieces.flatMap((p) => [...p])))
    .filter((bytes) => !Buffer.from(bytes).includes(Buffer.from(delimiter)));
}

function form(mark: string, file: Uint8Array): Uint8Array {
  const head =
    `--${mark}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n` +
    `--${mark}\r\nContent-Disposition: form-data; name="file"; filename="in.jsonl"\r\n\r\n`;
  return new Uint8Array([...encoder.encode(head), ...file, ...encoder.encode(`\r\n--${mark}--\r\n`)]);
}

describe("the multipart reader, property-tested", () => {
  it("finds the same parts and bytes however the body is cut, the boundary split anywhere", async () => {
    await fc.assert(
      fc.asyncProperty(
        boundary.chain((mark) => fc.tuple(fc.constant(mark), content(encoder.encode(`\r\n--${mark}`)))),
        fc.array(fc.nat(), { maxLength: 30 }),
        async ([mark, file], points) => {
          const found: Array<[string, number[]]> = [];
          for await (const part of multipartParts(stream(cut(form(mark, file), points)), mark)) {
            const bytes: number[] = [];
            for await (const chunk of part.body) bytes.push(...chunk);
            found.push([part.name, bytes]);
          }
          expect(found).toEqual([
            ["purpose", [...encoder.encode("batch")]],
            ["file", [...file]],
          ]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
