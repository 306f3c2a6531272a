import { describe, expect, it } from "vitest";
import { decode, encode } from "./wire.js";

describe("encode/decode", () => {
  it("keeps Infinity and Maps, which plain JSON drops", () => {
    const value = {
      maxQueue: Number.POSITIVE_INFINITY,
      tenantWeights: new Map([["a", 2]]),
      tenantQuotas: new Map([["b", { tokensPerMinute: Number.POSITIVE_INFINITY, maxPriority: undefined }]]),
      priorities: [{ name: "$inf", maxWaitMs: 1_000 }],
    };
    const back = decode(encode(value)) as typeof value;
    expect(back.maxQueue).toBe(Number.POSITIVE_INFINITY);
    expect(back.tenantWeights).toEqual(new Map([["a", 2]]));
    expect(back.tenantQuotas.get("b")).toEqual({ tokensPerMinute: Number.POSITIVE_INFINITY });
    expect(back.priorities).toEqual([{ name: "$inf", maxWaitMs: 1_000 }]);
  });

  it("leaves user data that only looks like a tag alone", () => {
    expect(decode('{"a":{"$inf":2},"b":{"$map":"x"},"c":{"$inf":1,"d":1}}')).toEqual({
      a: { $inf: 2 },
      b: { $map: "x" },
      c: { $inf: 1, d: 1 },
    });
  });

  it("throws a SyntaxError on text that is not JSON", () => {
    expect(() => decode("{")).toThrow(SyntaxError);
  });
});
