import { describe, expect, it, vi } from "vitest";
import { holdBody } from "./hold-body.js";

function source(chunks: string[], failAfter?: Error): ReadableStream<string> {
  let index = 0;
  return new ReadableStream<string>(
    {
      pull(controller) {
        if (index < chunks.length) controller.enqueue(chunks[index++]!);
        else if (failAfter) controller.error(failAfter);
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

describe("holdBody", () => {
  it("passes every chunk through and calls done once, after the last one has been read", async () => {
    const done = vi.fn();
    const reader = holdBody(source(["a", "b"]), done).getReader();
    expect(await reader.read()).toEqual({ done: false, value: "a" });
    expect(await reader.read()).toEqual({ done: false, value: "b" });
    expect(done).not.toHaveBeenCalled();
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(done).toHaveBeenCalledTimes(1);
    expect(done).toHaveBeenCalledWith(undefined);
  });

  it("does not read ahead of the client", async () => {
    let pulls = 0;
    const counted = new ReadableStream<string>(
      {
        pull(controller) {
          pulls++;
          controller.enqueue("x");
        },
      },
      { highWaterMark: 0 },
    );
    const reader = holdBody(counted, vi.fn()).getReader();
    await reader.read();
    await Promise.resolve();
    expect(pulls).toBe(1);
    await reader.cancel();
  });

  it("calls done and cancels the source when the client cancels", async () => {
    const done = vi.fn();
    const cancelled = vi.fn();
    const held = holdBody(new ReadableStream<string>({ cancel: cancelled }), done);
    await held.cancel("client gone");
    await held.cancel("again");
    expect(done).toHaveBeenCalledTimes(1);
    expect(cancelled).toHaveBeenCalledWith("client gone");
  });

  it("calls done only once the source has finished cancelling (the upstream call is torn down)", async () => {
    const done = vi.fn();
    let finishCancel!: () => void;
    const source = new ReadableStream<string>({
      cancel: () =>
        new Promise<void>((resolve) => {
          finishCancel = resolve;
        }),
    });
    const cancelling = holdBody(source, done).cancel("client gone");
    await Promise.resolve();
    expect(done).not.toHaveBeenCalled();
    finishCancel();
    await cancelling;
    expect(done).toHaveBeenCalledTimes(1);
  });

  it("calls done with the source's error and passes the error on", async () => {
    const done = vi.fn();
    const failure = new Error("upstream broke");
    const reader = holdBody(source(["a"], failure), done).getReader();
    await reader.read();
    await expect(reader.read()).rejects.toBe(failure);
    expect(done).toHaveBeenCalledExactlyOnceWith(failure);
  });
});
