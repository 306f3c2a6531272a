import { describe, expect, it } from "vitest";
import { parseBooks } from "./tenant-figures.js";

describe("parseBooks", () => {
  it("reads a tenant's record as quotas.lua writes it", () => {
    expect(parseBooks("2 1 1500 300 -250.5 1000 18200 3 1 1000")).toEqual({
      inflight: 1_500,
      level: -250.5,
      at: 1_000,
      served: 18_200,
      throttled: 3,
    });
    expect(parseBooks("0 1 0 50 x 1000 0 0 0 x")?.level).toBe(Number.POSITIVE_INFINITY);
  });

  it("answers undefined for no record or one of another shape", () => {
    expect(parseBooks(null)).toBeUndefined();
    expect(parseBooks("1 2 3")).toBeUndefined();
  });
});
