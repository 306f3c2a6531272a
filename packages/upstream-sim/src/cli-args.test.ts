import { describe, expect, it } from "vitest";
import { parseCliArgs } from "./cli-args.js";

describe("parseCliArgs", () => {
  it("reads --fault-rules as JSON, and says so when it is not", () => {
    const command = parseCliArgs(["--fault-rules", '[{"fault":"429","times":2,"promptIncludes":"q-7"}]']);
    expect(command).toEqual({
      kind: "start",
      options: { port: 8000, faultRules: [{ fault: "429", times: 2, promptIncludes: "q-7" }] },
    });
    expect(() => parseCliArgs(["--fault-rules", "[{fault}]"])).toThrow(/`--fault-rules` to be a JSON array/);
  });

  it("defaults to port 8000", () => {
    expect(parseCliArgs([])).toEqual({ kind: "start", options: { port: 8000 } });
  });

  it("maps flags to options and fault rates", () => {
    const command = parseCliArgs([
      "--port=0",
      "--parallel",
      "8",
      "--token-ms",
      "2.5",
      "--model",
      "llama",
      "--max-queued",
      "Infinity",
      "--rate-429",
      "0.1",
      "--rate-hang",
      "0.01",
    ]);
    expect(command).toEqual({
      kind: "start",
      options: {
        port: 0,
        parallel: 8,
        tokenMs: 2.5,
        model: "llama",
        maxQueued: Number.POSITIVE_INFINITY,
        faults: { 429: 0.1, hang: 0.01 },
      },
    });
  });

  it("asks for help", () => {
    expect(parseCliArgs(["-h"])).toEqual({ kind: "help" });
  });

  it("rejects unknown flags and non-numbers", () => {
    expect(() => parseCliArgs(["--nope"])).toThrow();
    expect(() => parseCliArgs(["--parallel", "many"])).toThrow(
      "Expected `--parallel` to be a number, got `many` (string)",
    );
  });

  it("reads the replica count and the prefix cache flags", () => {
    expect(
      parseCliArgs(["--replicas", "4", "--prefix-cache-blocks", "2048", "--block-tokens", "32"]),
    ).toEqual({
      kind: "start",
      options: { port: 8000, prefixCacheBlocks: 2048, blockTokens: 32 },
      replicas: 4,
    });
  });
});
