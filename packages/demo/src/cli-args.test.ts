import { describe, expect, it } from "vitest";
import { parseDemoArgs } from "./cli-args.js";

describe("parseDemoArgs", () => {
  it("reads every flag, the duration in seconds unless a unit is given", () => {
    expect(
      parseDemoArgs(
        [
          "--duration",
          "10",
          "--seed",
          "3",
          "--scenario",
          "s.json",
          "--upstream",
          "http://localhost:11434",
          "--model",
          "llama3",
          "--report",
          "r.html",
        ],
        { UPSTREAM_API_KEY: "secret" },
      ),
    ).toEqual({
      kind: "run",
      options: {
        durationMs: 10_000,
        seed: 3,
        scenarioFile: "s.json",
        upstreamUrl: "http://localhost:11434",
        model: "llama3",
        reportPath: "r.html",
        upstreamKey: "secret",
      },
    });
    expect(parseDemoArgs(["--duration", "1500ms"])).toEqual({ kind: "run", options: { durationMs: 1_500 } });
    expect(parseDemoArgs(["--duration", "1h"])).toEqual({ kind: "run", options: { durationMs: 3_600_000 } });
    expect(parseDemoArgs([])).toEqual({ kind: "run", options: {} });
    expect(parseDemoArgs(["-h"])).toEqual({ kind: "help" });
    expect(parseDemoArgs(["--exit"])).toEqual({ kind: "run", options: { holdDashboard: false } });
  });

  it.each([
    [["--duration", "soon"], "`--duration` to be a duration"],
    [["--seed", "1.5"], "`--seed` to be an integer"],
    [["--upstream", "localhost:8000"], "`--upstream` to be an http(s) URL"],
    [["extra"], "Unexpected argument"],
    [["--duration", "500ms"], "`--duration` to be from 1s to 1h"],
    [["--duration", "2h"], "for longer runs use pnpm simulate"],
    [["--seed", "1e300"], "`--seed` to be an integer"],
    [["--seed", " "], "`--seed` to be an integer"],
    [["--model", ""], "`--model` to be a model name"],
    [["--upstream", "http://"], "`--upstream` to be an http(s) URL"],
    [["--duration", "0"], "`--duration` to be a duration"],
    [["--bogus"], "Unknown option '--bogus'"],
  ])("refuses %j", (args, message) => {
    expect(() => parseDemoArgs(args)).toThrow(message);
    // A TypeError is what the CLI answers with the usage hint (test/demo/demo-cli.test.ts runs two).
    expect(() => parseDemoArgs(args)).toThrow(TypeError);
  });
});
