import { describe, expect, it } from "vitest";
import { resolveFaultRates, resolveUpstreamOptions } from "./options.js";

describe("resolveUpstreamOptions", () => {
  it("fills in the defaults and ignores undefined values", () => {
    const options = resolveUpstreamOptions({ parallel: undefined, model: "m" });
    expect(options).toMatchObject({
      port: 0,
      host: "127.0.0.1",
      model: "m",
      parallel: 4,
      defaultMaxTokens: 64,
      maxQueued: Number.POSITIVE_INFINITY,
      seed: 42,
      retryAfterSeconds: 1,
      slowFactor: 5,
      faults: { 429: 0, 500: 0, slow: 0, hang: 0 },
    });
  });

  it.each([
    [{ parallel: 0 }, "Expected `parallel` to be an integer from 1 to 100000, got `0` (number)"],
    [{ parallel: 1.5 }, "Expected `parallel` to be an integer from 1 to 100000, got `1.5` (number)"],
    [{ port: 70_000 }, "Expected `port` to be an integer from 0 to 65535, got `70000` (number)"],
    [{ host: "" }, "Expected `host` to be a non-empty string, got `` (string)"],
    [
      { defaultMaxTokens: 0 },
      "Expected `defaultMaxTokens` to be an integer from 1 to 1000000, got `0` (number)",
    ],
    [
      { maxQueued: -1 },
      "Expected `maxQueued` to be an integer from 0 to 1000000000, or Infinity, got `-1` (number)",
    ],
    [
      { seed: 0.5 },
      "Expected `seed` to be an integer from -9007199254740991 to 9007199254740991, got `0.5` (number)",
    ],
    [{ slowFactor: 0.5 }, "Expected `slowFactor` to be a number from 1 to 1000, got `0.5` (number)"],
    [{ parallel: 1e9 }, "Expected `parallel` to be an integer from 1 to 100000, got `1000000000` (number)"],
    [{ retryAfterSeconds: 1e9 }, "Expected `retryAfterSeconds` to be a number from 0 to 86400"],
    [{ ttftMs: Number.NaN }, "Expected `ttftMs` to be a number from 0 to 604800000, got `NaN` (number)"],
    [{ faults: { hang: 2 } }, "Expected `faults.hang` to be a number from 0 to 1, got `2` (number)"],
    [
      { faultRules: [{ fault: "429" as const, times: 0 }] },
      "Expected `faultRules[0].times` to be an integer from 1",
    ],
    [{ prefixCacheBlocks: -1 }, "Expected `prefixCacheBlocks` to be an integer from 0 to 10000000"],
  ])("rejects %o with INVALID_OPTION", (options, message) => {
    expect(() => resolveUpstreamOptions(options)).toThrow(
      expect.objectContaining({ code: "INVALID_OPTION", message: expect.stringContaining(message) }),
    );
  });

  it("rejects a misspelled option, naming the nearest known one, as every package does", () => {
    expect(() => resolveUpstreamOptions({ paralel: 4 } as never)).toThrow(
      /^Unknown option `paralel`; did you mean `parallel`\?/,
    );
    expect(() => resolveUpstreamOptions({ faultRule: [] } as never)).toThrow(/did you mean `faultRules`/);
  });
});

describe("resolveFaultRates", () => {
  it("fills in missing kinds with 0", () => {
    expect(resolveFaultRates({ hang: 0.25 })).toEqual({ 429: 0, 500: 0, slow: 0, hang: 0.25 });
  });

  it("rejects rates out of range, unknown kinds and sums above 1", () => {
    expect(() => resolveFaultRates({ 429: 2 })).toThrow(
      "Expected `faults.429` to be a number from 0 to 1, got `2`",
    );
    expect(() => resolveFaultRates({ teapot: 0.1 } as never)).toThrow("Unknown option `faults.teapot`");
    expect(() => resolveFaultRates({ 429: 0.6, 500: 0.6 })).toThrow("rates that sum to at most 1");
  });
});
