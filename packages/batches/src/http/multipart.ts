import { pauser } from "../pause.js";

/** One part of a `multipart/form-data` body; read `body` to its end before asking for the next part. */
export interface Part {
  readonly name: string;
  readonly filename: string | undefined;
  readonly body: AsyncGenerator<Uint8Array>;
}

/**
 * A body that is not valid multipart: the HTTP layer answers 400.
 *
 * @example
 * throw new MultipartError("The body ended inside a part");
 */
export class MultipartError extends Error {}

const CRLF = new Uint8Array([13, 10]);
const HEADER_END = new Uint8Array([13, 10, 13, 10]);
const MAX_HEADER_BYTES = 16_384;
const encoder = new TextEncoder();

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0]!;
  const last = haystack.length - needle.length;
  for (let i = haystack.indexOf(first, from); i !== -1 && i <= last; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** Bytes read from a stream on demand, with what is left of the last chunk kept in front. */
class Bytes {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  buffer: Uint8Array = new Uint8Array(0);
  ended = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** Reads one more chunk; false at the end of the stream. */
  async more(): Promise<boolean> {
    if (this.ended) return false;
    const { done, value } = await this.#reader.read();
    if (done) {
      this.ended = true;
      return false;
    }
    const joined = new Uint8Array(this.buffer.length + value.length);
    joined.set(this.buffer);
    joined.set(value, this.buffer.length);
    this.buffer = joined;
    return true;
  }

  /**
   * Waits until `needle` is in the buffer (searching no further than `limit` bytes); its index. Each
   * new chunk is searched from where the last search stopped (less a needle's length), not from 0.
   */
  async find(needle: Uint8Array, limit: number, what: string): Promise<number> {
    let from = 0;
    for (;;) {
      const at = indexOf(this.buffer, needle, from);
      if (at !== -1) return at;
      if (this.buffer.length > limit) throw new MultipartError(`${what} is too long`);
      from = Math.max(0, this.buffer.length - needle.length + 1);
      if (!(await this.more())) throw new MultipartError(`The body ended inside ${what}`);
    }
  }

  consume(bytes: number): void {
    this.buffer = this.buffer.subarray(bytes);
  }

  cancel(): void {
    this.#reader.cancel().catch(() => {});
  }
}

function parseHeaders(text: string): { name: string; filename: string | undefined } {
  const disposition = text.split("\r\n").find((line) => /^content-disposition:/i.test(line));
  const name = disposition === undefined ? undefined : /\bname="([^"]*)"/i.exec(disposition)?.[1];
  if (name === undefined) throw new MultipartError("A part has no Content-Disposition name");
  const filename = /\bfilename="([^"]*)"/i.exec(disposition ?? "")?.[1];
  return { name, filename };
}

/**
 * The boundary of a `multipart/form-data` content type, or undefined.
 *
 * @example
 * boundaryOf("multipart/form-data; boundary=xyz"); // "xyz"
 */
export function boundaryOf(contentType: string | null): string | undefined {
  if (contentType === null || !/^multipart\/form-data/i.test(contentType)) return undefined;
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/**
 * Streams the parts of a `multipart/form-data` body: headers are parsed, each part's body is handed on
 * in chunks as it arrives and never held whole (only a boundary's length is kept back between chunks).
 *
 * @example
 * for await (const part of multipartParts(request.body!, boundaryOf(request.headers.get("content-type"))!)) {
 *   for await (const chunk of part.body) consume(chunk);
 * }
 */
export async function* multipartParts(
  stream: ReadableStream<Uint8Array>,
  boundary: string,
): AsyncGenerator<Part> {
  const bytes = new Bytes(stream);
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  try {
    bytes.buffer = new Uint8Array(CRLF); // the first boundary has no CRLF before it
    const first = await bytes.find(delimiter, MAX_HEADER_BYTES, "the preamble");
    bytes.consume(first + delimiter.length);
    for (;;) {
      while (bytes.buffer.length < 2 && (await bytes.more()));
      if (bytes.buffer[0] === 45 && bytes.buffer[1] === 45) return; // "--": the closing boundary
      const end = await bytes.find(HEADER_END, MAX_HEADER_BYTES, "a part's headers");
      const headers = parseHeaders(new TextDecoder().decode(bytes.buffer.subarray(0, end)));
      bytes.consume(end + HEADER_END.length);
      const body = partBody(bytes, delimiter);
      yield { ...headers, body };
      for await (const _ of body); // whatever the consumer left unread
    }
  } finally {
    bytes.cancel();
  }
}

async function* partBody(bytes: Bytes, delimiter: Uint8Array): AsyncGenerator<Uint8Array> {
  const pause = pauser();
  for (;;) {
    const at = indexOf(bytes.buffer, delimiter);
    if (at !== -1) {
      if (at > 0) yield bytes.buffer.slice(0, at);
      bytes.consume(at + delimiter.length);
      return;
    }
    const safe = bytes.buffer.length - delimiter.length + 1;
    if (safe > 0) {
      const chunk = bytes.buffer.slice(0, safe);
      bytes.consume(safe);
      yield chunk;
    }
    await pause();
    if (!(await bytes.more())) throw new MultipartError("The body ended inside a part");
  }
}
