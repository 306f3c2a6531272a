import { describe, expect, it } from "vitest";
import { type BatchArgs, Batcher } from "./batcher.js";
import type { Reply } from "./replies.js";

const counts = { running: 0, queued: 0, priorities: {}, starts: {} };

function recorder(reply: (args: BatchArgs) => Reply, maxItems = 3) {
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
      batcher.add("enqueue", ["a", 1]),
      batcher.add("release", ["x"]),
      batcher.add("remove", ["y"]),
      batcher.add("usage", ["p", "t", 10, 8, 4]),
      batcher.add("enqueue", ["b", 2]),
    ]);
    expect(sent).toEqual([
      { release: ["x"], remove: ["y"], usage: ["p", "t", 10, 8, 4], enqueue: ["a", 1, "b", 2] },
    ]);
    expect(results).toEqual(["10", "5", "5", "5", "11"]);
    expect(absorbed).toHaveLength(1);
  });

  it("starts a new call when a batch is full", async () => {
    const { batcher, sent } = recorder(() => ({ status: 0, counts, granted: [], extra: ["0", "0", "0"] }));
    await Promise.all(["a", "b", "c", "d"].map((id) => batcher.add("remove", [id])));
    expect(sent.map((args) => args.remove)).toEqual([["a", "b", "c"], ["d"]]);
  });

  it("answers every caller of a call that stopped early with its status, absorbing nothing", async () => {
    const { batcher, absorbed } = recorder(() => ({ status: -9, counts: undefined, granted: [], extra: [] }));
    expect(await Promise.all([batcher.add("enqueue", ["a"]), batcher.add("enqueue", ["b"])])).toEqual([
      "-9",
      "-9",
    ]);
    expect(absorbed).toEqual([]);
  });

  it("rejects every caller of a call that failed", async () => {
    const batcher = new Batcher(
      () => Promise.reject(new Error("down")),
      () => {},
    );
    const results = await Promise.allSettled([batcher.add("release", ["a"]), batcher.add("release", ["b"])]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });
});
