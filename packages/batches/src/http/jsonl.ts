import { pauser } from "../pause.js";

/**
 * A line too long, or a file too big: the HTTP layer answers 400 or 413.
 *
 * @example
 * throw new LimitError(413, "The file is larger than the limit");
 */
export class LimitError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** One line of a JSONL file, numbered from 1; blank lines are counted but not yielded. */
export interface Line {
  readonly number: number;
  readonly text: string;
}

const NEWLINE = 10;

/** Decodes a line's bytes as they come (`more`: the line goes on); a 400 when not UTF-8. */
function decoderOf(): (bytes: Uint8Array, number: number, more: boolean) => string {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  return (bytes, number, more) => {
    try {
      return decoder.decode(bytes, { stream: more });
    } catch {
      throw new LimitError(400, `Line ${number} is not valid UTF-8`);
    }
  };
}

/** A line's text from its pieces, without its `\r` (nor the file's byte order mark, on line 1). */
function textOf(pieces: string[], number: number): string {
  let text = pieces.length === 1 ? pieces[0]! : pieces.join("");
  if (text.endsWith("\r")) text = text.slice(0, -1);
  return number === 1 && text.startsWith("\uFEFF") ? text.slice(1) : text;
}

const tooLong = (number: number, max: number) =>
  new LimitError(400, `Line ${number} is longer than the limit of ${max} bytes`);

/**
 * Splits a stream of bytes into lines as it arrives (UTF-8, `\n` or `\r\n`), holding at most one line
 * and one chunk; a line longer than `maxLineBytes` or a total above `maxBytes` throws a
 * {@link LimitError}. `counted.bytes` is the total read so far. Each byte is looked at once (a long
 * line costs what short lines cost per byte), and long work pauses for other tasks between chunks.
 *
 * @example
 * for await (const { number, text } of lines(part.body, { maxFileBytes: 200 * 2 ** 20, maxLineBytes: 2 ** 20 })) parse(number, text);
 */
export async function* lines(
  chunks: AsyncIterable<Uint8Array>,
  limits: { readonly maxFileBytes: number; readonly maxLineBytes: number },
  counted: { bytes: number } = { bytes: 0 },
): AsyncGenerator<Line> {
  const pause = pauser();
  const decode = decoderOf();
  let pieces: string[] = [];
  let pending = 0;
  let number = 0;
  for await (const chunk of chunks) {
    counted.bytes += chunk.length;
    if (counted.bytes > limits.maxFileBytes) {
      throw new LimitError(413, `The file is larger than the limit of ${limits.maxFileBytes} bytes`);
    }
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      number++;
      if (pending + end - start > limits.maxLineBytes) throw tooLong(number, limits.maxLineBytes);
      pieces.push(decode(chunk.subarray(start, end), number, false));
      const text = textOf(pieces, number);
      pieces = [];
      pending = 0;
      start = end + 1;
      await pause();
      if (text.trim() !== "") yield { number, text };
    }
    if (start < chunk.length) {
      pending += chunk.length - start;
      if (pending > limits.maxLineBytes) throw tooLong(number + 1, limits.maxLineBytes);
      pieces.push(decode(chunk.subarray(start), number + 1, true));
    }
    await pause();
  }
  if (pending === 0) return;
  pieces.push(decode(new Uint8Array(0), number + 1, false));
  const text = textOf(pieces, number + 1);
  if (text.trim() !== "") yield { number: number + 1, text };
}
