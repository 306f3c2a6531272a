import { describe, expect, it } from "vitest";
import { type BatchArgs, Batcher } from "./batcher.js";
import type { Reply } from "./replies.js";

const counts = { running: 0, queued: 0, priorities: {}, starts: {} };
const same = (status: string): string => status;
const rethrow = (error: unknown): never => {
  throw error;
};

/** A batcher whose calls are recorded and answered by `reply` (a promise: a reply the test gives later). */
function recorder(reply: (args: BatchArgs) => Reply | Promise<Reply>, maxItems = 3) {
  const sent: BatchArgs[] = [];
  const absorbed: Reply[] = [];
  const batcher = new Batcher(
    async (args) => {
      sent.push(structuredClone(args));
      return reply(args);
    },
    (r) => absorbed.push(r),
    maxItems,
  );
  return { batcher, sent, absorbed };
}

describe("Batcher", () => {
  it("sends the usage reports, enqueues, releases and removals of one turn as one call, and answers each", async () => {
    const { batcher, sent, absorbed } = recorder(
      (args) => ({
        status: 5,
        counts,
        granted: [],
        extra: args.enqueue.filter((_, i) => i % 2 === 0).map((_, i) => String(10 + i)),
      }),
      5,
    );
    const results = await Promise.all([
      batcher.add("enqueue", ["a", 1], same, rethrow),
      batcher.add("release", ["x"], same, rethrow),
      batcher.add("remove", ["y"], same, rethrow),
      batcher.add("usage", ["p", "t", 10, 8, 4], same, rethrow),
      batcher.add("enqueue", ["b", 2], same, rethrow),
    ]);
    expect(sent).toEqual([
      { release: ["x"], remove: ["y"], usage: ["p", "t", 10, 8, 4], enqueue: ["a", 1, "b", 2] },
    ]);
    expect(results).toEqual(["10", "5", "5", "5", "11"]);
    expect(absorbed).toHaveLength(1);
  });

  it("starts a new call when a batch is full", async () => {
    const { batcher, sent } = recorder(() => ({ status: 0, counts, granted: [], extra: ["0", "0", "0"] }));
    await Promise.all(["a", "b", "c", "d"].map((id) => batcher.add("remove", [id], same, rethrow)));
    expect(sent.map((args) => args.remove)).toEqual([["a", "b", "c"], ["d"]]);
  });

  it("gathers what comes while a call is out into one call, sent once the reply is in", async () => {
    const replies: Array<(reply: Reply) => void> = [];
    const { batcher, sent } = recorder(() => new Promise((resolve) => replies.push(resolve)));
    const first = batcher.add("release", ["a"], same, rethrow);
    await Promise.resolve();
    expect(sent).toHaveLength(1);
    const later = [
      batcher.add("release", ["b"], same, rethrow),
      batcher.add("enqueue", ["c", 1], same, rethrow),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toHaveLength(1); // waits for the call that is out
    replies[0]!({ status: 0, counts, granted: [], extra: [] });
    expect(await first).toBe("0");
    await Promise.resolve();
    expect(sent.map((args) => [args.release, args.enqueue])).toEqual([
      [["a"], []],
      [["b"], ["c", 1]],
    ]);
    replies[1]!({ status: 0, counts, granted: [], extra: ["1"] });
    expect(await Promise.all(later)).toEqual(["0", "1"]);
  });

  it("sends what gathered while a call was out once that call failed, and answers it by its own reply", async () => {
    const fails: Array<(error: Error) => void> = [];
    const { batcher, sent } = recorder(() =>
      sent.length > 1
        ? { status: 0, counts, granted: [], extra: ["1"] }
        : new Promise((_, reject) => fails.push(reject)),
    );
    const first = batcher.add("release", ["a"], same, rethrow);
    await Promise.resolve();
    const gathered = batcher.add("enqueue", ["b"], same, () => "failed");
    fails[0]!(new Error("timeout"));
    await expect(first).rejects.toThrow("timeout");
    expect(await gathered).toBe("1");
    expect(sent.map((args) => args.enqueue)).toEqual([[], ["b"]]);
  });

  it("answers every caller of a call that stopped early with its status, absorbing nothing", async () => {
    const { batcher, absorbed } = recorder(() => ({ status: -9, counts: undefined, granted: [], extra: [] }));
    expect(
      await Promise.all([
        batcher.add("enqueue", ["a"], same, rethrow),
        batcher.add("enqueue", ["b"], same, rethrow),
      ]),
    ).toEqual(["-9", "-9"]);
    expect(absorbed).toEqual([]);
  });

  it("hands each caller's handler its status or the failure, and rejects a caller whose handler throws", async () => {
    const { batcher } = recorder(() => ({ status: 0, counts, granted: [], extra: ["1", "-1"] }));
    const refuse = (status: string): boolean => {
      if (status === "-1") throw new Error("full");
      return status === "1";
    };
    const results = await Promise.allSettled([
      batcher.add("enqueue", ["a"], refuse, () => false),
      batcher.add("enqueue", ["b"], refuse, () => false),
    ]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      true,
      "full",
    ]);
    const failing = new Batcher(
      () => Promise.reject(new Error("down")),
      () => {},
    );
    expect(
      await failing.add(
        "release",
        ["a"],
        () => "sent",
        () => "down",
      ),
    ).toBe("down");
  });

  it("rejects every caller of a call that failed", async () => {
    const batcher = new Batcher(
      () => Promise.reject(new Error("down")),
      () => {},
    );
    const results = await Promise.allSettled([
      batcher.add("release", ["a"], same, rethrow),
      batcher.add("release", ["b"], same, rethrow),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });
});
