import { describe, expect, it } from "vitest";
import { parseReply } from "./replies.js";

describe("parseReply", () => {
  it("reads status, counts per priority, grants and extras", () => {
    const reply = parseReply([0, [3, 5, "interactive", 1, 2, 40, "batch", 2, 3, 7], ["a:1", "a:2"], ["a:9"]]);
    expect(reply).toEqual({
      status: 0,
      counts: {
        running: 3,
        queued: 5,
        priorities: { interactive: { running: 1, queued: 2 }, batch: { running: 2, queued: 3 } },
        starts: { interactive: 40, batch: 7 },
      },
      granted: ["a:1", "a:2"],
      extra: ["a:9"],
    });
  });

  it("reads an early stop without counts", () => {
    expect(parseReply([-9])).toEqual({ status: -9, counts: undefined, granted: [], extra: [] });
  });

  it("throws on a reply no script gives", () => {
    expect(() => parseReply("OK")).toThrow("Unexpected reply");
  });
});
