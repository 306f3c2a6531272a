import { describe, expect, it } from "vitest";
import { HttpError } from "./errors.js";
import { FaultRules, resolveFaultRules } from "./fault-rules.js";

const none = {};

describe("FaultRules", () => {
  it("gives a matching request its fault on its first `times` attempts, counted per prompt", () => {
    const rules = new FaultRules([{ fault: "429", times: 2, promptIncludes: "q-7", retryAfterSeconds: 0.5 }]);
    const seen = Array.from({ length: 4 }, () => rules.pick("summarise q-7 please", none)?.kind);
    expect(seen).toEqual(["429", "429", undefined, undefined]);
    expect(rules.pick("summarise q-8", none)).toBeUndefined();
    expect(rules.pick("another q-7 prompt", none)).toEqual({ kind: "429", retryAfterSeconds: 0.5 });
  });

  it("counts by x-sim-fault-key when given, and a rule with a key matches only that key", () => {
    const rules = new FaultRules([
      { fault: "500", key: "item-1" },
      { fault: "hang", times: 1 },
    ]);
    const item1 = { "x-sim-fault-key": "item-1" };
    expect(rules.pick("a", item1)?.kind).toBe("500");
    // Same key, another prompt: the first rule is spent for item-1; the catch-all hangs its first attempt.
    expect(rules.pick("b", item1)?.kind).toBe("hang");
    expect(rules.pick("c", item1)).toBeUndefined();
    expect(rules.pick("c", { "x-sim-fault-key": "item-2" })?.kind).toBe("hang");
  });

  it("limits x-sim-fault to the first attempts with x-sim-fault-times", () => {
    const rules = new FaultRules();
    const headers = { "x-sim-fault-times": "2", "x-sim-fault-key": "k" };
    const seen = Array.from({ length: 3 }, () => rules.limitHeader("500", "p", headers));
    expect(seen).toEqual(["500", "500", undefined]);
    expect(rules.limitHeader("500", "p", {})).toBe("500");
    const error = (() => {
      try {
        rules.limitHeader("500", "p", { "x-sim-fault-times": "0" });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
  });

  it("replace() forgets the attempts counted so far", () => {
    const rules = new FaultRules([{ fault: "500" }]);
    expect(rules.pick("p", none)?.kind).toBe("500");
    expect(rules.pick("p", none)).toBeUndefined();
    rules.replace([{ fault: "500" }]);
    expect(rules.pick("p", none)?.kind).toBe("500");
  });
});

describe("resolveFaultRules", () => {
  it.each([
    [[{ fault: "teapot" }], "faultRules[0].fault"],
    [[{ fault: "429", times: 0 }], "faultRules[0].times"],
    [[{ fault: "429", times: 1.5 }], "faultRules[0].times"],
    [[{ fault: "429", retryAfterSeconds: -1 }], "faultRules[0].retryAfterSeconds"],
    [[{ fault: "429", promptIncludes: 3 }], "faultRules[0].promptIncludes"],
    ["all", "faultRules"],
  ])("rejects %j naming %s", (rules, name) => {
    expect(() => resolveFaultRules(rules as never)).toThrow(
      new RegExp(`Expected \`${name.replace(/[[\]]/g, "\\$&")}\``),
    );
  });

  it("rejects an unknown key in the shape every package uses, with the nearest known one", () => {
    expect(() => resolveFaultRules([{ fault: "429", time: 2 } as never])).toThrow(
      /Unknown option `faultRules\[0\]\.time`; did you mean `times`\?/,
    );
  });

  it("fills in times and promptIncludes", () => {
    expect(resolveFaultRules([{ fault: "slow", times: Number.POSITIVE_INFINITY }])).toEqual([
      { fault: "slow", times: Number.POSITIVE_INFINITY, promptIncludes: "" },
    ]);
  });
});
