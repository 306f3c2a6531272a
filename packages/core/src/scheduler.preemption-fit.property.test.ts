import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitOp, fitScenario, memoryWorld, type Seen } from "../test/preemption-properties.js";

describe("preemption stops only victims whose slot the arrival takes (property)", () => {
  it("hands every victim's slot to a chat arrival, whatever tenant caps and token budget say", async () => {
    const seen: Seen = { preemptions: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(fitOp, { minLength: 1, maxLength: 50 }), (ops) =>
        fitScenario(ops, memoryWorld, seen),
      ),
      { numRuns: 200 },
    );
    expect(seen.preemptions).toBeGreaterThan(30);
  }, 60_000);
});
