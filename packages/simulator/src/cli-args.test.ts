import { describe, expect, it } from "vitest";
import { parseDurationFlag, parseSimulateArgs } from "./cli-args.js";

describe("parseSimulateArgs", () => {
  it("reads a file, overrides and a sweep written after one --sweep flag", () => {
    expect(
      parseSimulateArgs([
        "day.json",
        "--seed",
        "7",
        "--duration",
        "2h",
        "--sweep",
        "batch.weight=1,2,4",
        "interactive.reserved=0,1,2",
        "--goal",
        "interactiveWaitP95Ms=500",
      ]),
    ).toEqual({
      kind: "run",
      file: "day.json",
      seed: 7,
      durationMs: 7_200_000,
      sweep: ["batch.weight=1,2,4", "interactive.reserved=0,1,2"],
      goal: { interactiveWaitP95Ms: 500 },
      html: undefined,
    });
  });

  it.each([
    [[], "Expected one scenario file, got none"],
    [["a.json", "b.json"], "got a.json, b.json"],
    [["a.json", "batch.weight=1"], "sweep settings follow --sweep"],
    [["a.json", "--seed", "x"], "`--seed` to be a number"],
    [["a.json", "--goal", "fast"], "field=number"],
    [["a.json", "--sweep", "batch.weight=1", "--html", "r.html"], "cannot be used with"],
    [["a.json", "--colour"], "Unknown option"],
    [["a.json", "--goal", "interactiveWaitP95Ms=5"], "`--goal` applies only to a `--sweep`"],
  ])("refuses %j", (args, message) => {
    expect(() => parseSimulateArgs(args)).toThrow(message);
  });

  it("asks for help", () => {
    expect(parseSimulateArgs(["--help"])).toEqual({ kind: "help" });
  });
});

describe("parseDurationFlag", () => {
  it.each([
    ["10", 10_000],
    ["1.5", 1_500],
    ["500ms", 500],
    ["90s", 90_000],
    ["30m", 1_800_000],
    ["2min", 120_000],
    ["24h", 86_400_000],
    ["1d", 86_400_000],
  ])("reads %s as %d ms", (text, ms) => {
    expect(parseDurationFlag("duration", text)).toBe(ms);
  });

  it.each(["", "0", "-5", "ten", "5 weeks"])("refuses %j", (text) => {
    expect(() => parseDurationFlag("duration", text)).toThrow("Expected `--duration` to be a duration");
  });
});
