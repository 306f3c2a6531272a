import { LimitError } from "./jsonl.js";

/**
 * Whether the request declares a `Content-Length` above `max` (refused before a byte is read).
 *
 * @example
 * if (declaredAbove(request, 1_048_576)) return tooLarge(1_048_576);
 */
export function declaredAbove(request: Request, max: number): boolean {
  const declared = request.headers.get("content-length");
  return declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > max;
}

/**
 * The stream's chunks, counted as they pass: once more than `max` bytes have come, the stream is
 * cancelled (nothing more is read) and a 413 {@link LimitError} is thrown.
 *
 * @example
 * for await (const chunk of counted(request.body, 1_048_576, "The request body")) parts.push(chunk);
 */
export async function* counted(
  stream: ReadableStream<Uint8Array>,
  max: number,
  what: string,
): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.length;
      if (total > max) throw new LimitError(413, `${what} is larger than the limit of ${max} bytes`);
      yield value;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/**
 * The body as a stream that errors (413 {@link LimitError}) once more than `max` bytes have come, for
 * parsers that take a `ReadableStream`.
 *
 * @example
 * multipartParts(limitedStream(request.body, maxFileBytes + 65_536, "The upload"), boundary);
 */
export function limitedStream(
  stream: ReadableStream<Uint8Array>,
  max: number,
  what: string,
): ReadableStream<Uint8Array> {
  const chunks = counted(stream, max, what);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await chunks.next();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          controller.error(error);
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Reads a JSON body of at most `max` bytes: a 413 {@link LimitError} on a larger declared length (the
 * body is not read) or as soon as the counted bytes pass it; `undefined` when it is not JSON.
 *
 * @example
 * const body = await boundedJson(request, options.maxBodyBytes);
 */
export async function boundedJson(request: Request, max: number): Promise<unknown> {
  if (declaredAbove(request, max)) {
    throw new LimitError(413, `The request body is larger than the limit of ${max} bytes`);
  }
  if (request.body === null) return undefined;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const parts: string[] = [];
  try {
    for await (const chunk of counted(request.body, max, "The request body")) {
      parts.push(decoder.decode(chunk, { stream: true }));
    }
    parts.push(decoder.decode());
    return JSON.parse(parts.join(""));
  } catch (error) {
    if (error instanceof LimitError) throw error;
    return undefined;
  }
}
