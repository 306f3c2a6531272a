import type { SchedulerError } from "@llm-scheduler/core";
import { stopOf } from "./run-timeout.js";

type Read<T> = Promise<ReadableStreamReadResult<T>>;

function ignore(): void {}

/**
 * A stream of what `reader` still has, starting with the read already under way (`first`): nothing is
 * lost, the client reads at its own pace, and a cancel reaches the source.
 */
function rest<T>(reader: ReadableStreamDefaultReader<T>, first: Read<T>): ReadableStream<T> {
  let next: Read<T> | undefined = first;
  return new ReadableStream<T>(
    {
      async pull(controller) {
        const read = next ?? reader.read();
        next = undefined;
        const result = await read;
        if (result.done) controller.close();
        else controller.enqueue(result.value);
      },
      cancel(reason) {
        next?.catch(ignore);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Waits, before an answer is committed (its status sent), until `body` has its first chunk or has
 * ended or failed; resolves with a stream that gives the same chunks, the first one included. Should
 * `signal` (a permit's) abort first because the request was preempted or timed out, `body` is
 * cancelled (the upstream call behind it torn down) and, once the cancel has reached its source, the
 * promise resolves with that error instead, for the adapter to answer 503 or 504. Any other abort (the
 * client left) stops the wait: the stream is handed on as it is. `committed` (if given) is called at
 * once when the first chunk, the end or a failure arrives, before anything else can run (a preemption
 * then comes too late). Web streams only.
 *
 * @example
 * const first = await untilFirstChunk(response.body, slot.signal);
 * return first instanceof ReadableStream ? new Response(first, response) : answer503(first);
 */
export function untilFirstChunk<T>(
  body: ReadableStream<T>,
  signal: AbortSignal,
  committed?: () => void,
): Promise<ReadableStream<T> | SchedulerError> {
  const reader = body.getReader();
  const stopped = (stop: SchedulerError): Promise<SchedulerError> =>
    reader.cancel(stop).then(
      () => stop,
      () => stop,
    );
  const early = stopOf(signal);
  if (early !== undefined) return stopped(early);
  const first = reader.read();
  if (signal.aborted) return Promise.resolve(rest(reader, first));
  return new Promise((resolve) => {
    let waiting = true;
    const onAbort = (): void => {
      if (!waiting) return;
      waiting = false;
      const stop = stopOf(signal);
      if (stop === undefined) resolve(rest(reader, first));
      else {
        first.catch(ignore);
        resolve(stopped(stop));
      }
    };
    const onFirst = (): void => {
      if (!waiting) return;
      waiting = false;
      signal.removeEventListener("abort", onAbort);
      committed?.();
      resolve(rest(reader, first));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    first.then(onFirst, onFirst);
  });
}
