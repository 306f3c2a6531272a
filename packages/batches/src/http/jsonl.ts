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

/**
 * Splits a stream of bytes into lines as it arrives (UTF-8, `\n` or `\r\n`), holding at most one line
 * and one chunk; a line longer than `maxLineBytes` or a total above `maxBytes` throws a
 * {@link LimitError}. `counted.bytes` is the total read so far.
 *
 * @example
 * for await (const { number, text } of lines(part.body, { maxFileBytes: 200 * 2 ** 20, maxLineBytes: 2 ** 20 })) parse(number, text);
 */
export async function* lines(
  chunks: AsyncIterable<Uint8Array>,
  limits: { readonly maxFileBytes: number; readonly maxLineBytes: number },
  counted: { bytes: number } = { bytes: 0 },
): AsyncGenerator<Line> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let rest = "";
  let number = 0;
  for await (const chunk of chunks) {
    counted.bytes += chunk.length;
    if (counted.bytes > limits.maxFileBytes) {
      throw new LimitError(413, `The file is larger than the limit of ${limits.maxFileBytes} bytes`);
    }
    let text: string;
    try {
      text = rest + decoder.decode(chunk, { stream: true });
    } catch {
      throw new LimitError(400, `Line ${number + 1} is not valid UTF-8`);
    }
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      number++;
      const line = text.slice(start, end > start && text[end - 1] === "\r" ? end - 1 : end);
      start = end + 1;
      if (line.trim() !== "") yield { number, text: line };
    }
    rest = text.slice(start);
    if (rest.length > limits.maxLineBytes) {
      throw new LimitError(
        400,
        `Line ${number + 1} is longer than the limit of ${limits.maxLineBytes} bytes`,
      );
    }
  }
  const last = rest + decoder.decode();
  if (last.trim() !== "") yield { number: number + 1, text: last.replace(/\r$/, "") };
}
