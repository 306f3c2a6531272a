import { ErrorCode, SchedulerError } from "@llm-scheduler/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { untilFirstChunk } from "./first-chunk.js";

/** A source whose chunks the test hands out one by one; records what cancelled it. */
function source() {
  let controller!: ReadableStreamDefaultController<string>;
  const cancelled: unknown[] = [];
  const body = new ReadableStream<string>(
    {
      start(c) {
        controller = c;
      },
      cancel(reason) {
        cancelled.push(reason);
      },
    },
    { highWaterMark: 0 },
  );
  // Once cancelled, the source (an upstream call) has stopped: what it would still send goes nowhere.
  const live = (send: () => void) => (cancelled.length === 0 ? send() : undefined);
  return {
    body,
    cancelled,
    push: (chunk: string) => live(() => controller.enqueue(chunk)),
    close: () => live(() => controller.close()),
  };
}

async function readAll(stream: ReadableStream<string>): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<string>) chunks.push(chunk);
  return chunks;
}

const stops = {
  preempted: () => new SchedulerError(ErrorCode.PREEMPTED, "preempted"),
  timeout: () => new SchedulerError(ErrorCode.RUN_TIMEOUT, "timed out"),
  client: () => new Error("The client closed the connection"),
};

describe("untilFirstChunk", () => {
  it("hands on every chunk, the first included, when the body speaks first; a stop when it comes first", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 4 }),
        fc.constantFrom("preempted", "timeout", "client") as fc.Arbitrary<keyof typeof stops>,
        fc.boolean(),
        fc.nat(3),
        async (chunks, kind, abortFirst, turns) => {
          const { body, cancelled, push, close } = source();
          const permit = new AbortController();
          let committed = 0;
          const waiting = untilFirstChunk(body, permit.signal, () => committed++);
          const speak = () => {
            if (chunks.length > 0) push(chunks[0]!);
            else close();
          };
          if (abortFirst) permit.abort(stops[kind]());
          else speak();
          for (let turn = 0; turn < turns; turn++) await Promise.resolve();
          if (abortFirst) speak();
          else {
            // Preemption comes from another request's I/O: after the promise jobs the chunk started.
            await new Promise((resolve) => setImmediate(resolve));
            permit.abort(stops[kind]()); // too late: the answer is committed
          }
          for (const chunk of chunks.slice(1)) push(chunk);
          if (chunks.length > 0) close();
          const result = await waiting;
          if (abortFirst && kind !== "client") {
            expect(result).toBeInstanceOf(SchedulerError);
            expect(cancelled).toEqual([result]); // the upstream call behind it is torn down
            expect(committed).toBe(0);
            return;
          }
          expect(result).toBeInstanceOf(ReadableStream);
          expect(await readAll(result as ReadableStream<string>)).toEqual(chunks);
          expect(cancelled).toEqual([]);
          expect(committed).toBe(abortFirst ? 0 : 1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("passes a cancel of the stream it hands on to the source", async () => {
    const { body, cancelled, push } = source();
    const waiting = untilFirstChunk(body, new AbortController().signal);
    push("a");
    const stream = (await waiting) as ReadableStream<string>;
    await stream.cancel("gone");
    expect(cancelled).toEqual(["gone"]);
  });

  it("settles with the stop at once when the signal had already stopped the request", async () => {
    const { body, cancelled } = source();
    const permit = new AbortController();
    permit.abort(stops.preempted());
    const result = await untilFirstChunk(body, permit.signal);
    expect(result).toMatchObject({ code: "PREEMPTED" });
    expect(cancelled).toHaveLength(1);
  });
});
