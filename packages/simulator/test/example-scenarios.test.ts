import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { demoScenario } from "../src/demo-scenario.js";
import { ScenarioError } from "../src/scenario-error.js";
import { loadScenarioFile } from "../src/scenario-load.js";

const folder = fileURLToPath(new URL("../../../examples/scenarios/", import.meta.url));
const files = (await readdir(folder)).filter((name) => name.endsWith(".json")).sort();

describe("examples/scenarios", () => {
  it("has the documented examples", () => {
    expect(files).toEqual([
      "adaptive.json",
      "batch-windows.json",
      "busy-hour.json",
      "day-targets.json",
      "day.json",
      "demo.json",
      "minimal.json",
      "pool.json",
    ]);
  });

  it.each(files)("%s is a valid scenario", async (name) => {
    const { resolved } = await loadScenarioFile(`${folder}${name}`);
    expect(resolved.name).toBe(name.replace(/\.json$/, ""));
  });

  it("demo.json is exactly the workload pnpm demo replays by default", async () => {
    expect(JSON.parse(await readFile(`${folder}demo.json`, "utf8"))).toEqual(demoScenario());
  });

  it("names the file and the field when a file is wrong", async () => {
    const error = await loadScenarioFile(`${folder}demo.json`, { durationMs: -1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as ScenarioError).field).toBe("durationMs");
    expect((error as ScenarioError).message).toMatch(
      /demo\.json: Expected `durationMs` to be a number in \(0, 31536000000\], got `-1`/,
    );
    const array = join(tmpdir(), `llm-scheduler-array-${process.pid}.json`);
    await writeFile(array, "[]");
    const notObject = await loadScenarioFile(array, { seed: 2 }).catch((e: unknown) => e);
    await rm(array, { force: true });
    expect((notObject as Error).message).toMatch(
      /Expected `scenario` to be a JSON object .*got `\[\]` \(object\)/,
    );
    const missing = await loadScenarioFile(`${folder}nope.json`).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/Cannot read scenario file .*nope\.json/);
  });
});
