import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { memoryWorld, type Seen, settleOp, settlesOnceScenario } from "../test/preemption-properties.js";

describe("preemption (property)", () => {
  it("settles every task once, never exceeds the limit while victims wind down, respects maxPerTask", async () => {
    const seen: Seen = { preemptions: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(settleOp, { minLength: 1, maxLength: 60 }), (ops) =>
        settlesOnceScenario(ops, memoryWorld, seen),
      ),
      { numRuns: 200 },
    );
    expect(seen.preemptions).toBeGreaterThan(30);
  }, 60_000);
});
