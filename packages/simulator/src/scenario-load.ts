import { readFile } from "node:fs/promises";
import { invalidOption } from "@llm-scheduler/core/kit";
import type { Scenario } from "./scenario.js";
import { ScenarioError } from "./scenario-error.js";
import { resolveScenario } from "./scenario-resolve.js";

/** A scenario file as written (`raw`), and validated with every default filled in (`resolved`). */
export type LoadedScenario = Awaited<ReturnType<typeof loadScenarioFile>>;

/** Changes made on the command line on top of the file. */
export type ScenarioOverrides = Partial<Pick<Scenario, "seed" | "durationMs">>;

/**
 * Reads, parses and validates a scenario JSON file, with the command line's `overrides` on top. Errors
 * are {@link ScenarioError}s prefixed with the file name, naming the bad field:
 * ``demo.json: Expected `chat.timeoutMs` to be a number in (0, 604800000], …``.
 *
 * @example
 * const { resolved } = await loadScenarioFile("examples/scenarios/demo.json", { seed: 2 });
 */
export async function loadScenarioFile(path: string, overrides: ScenarioOverrides = {}) {
  const fail = (field: string, message: string, cause: unknown) =>
    new ScenarioError(field, message, { cause });
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw fail("", `Cannot read scenario file ${path}: ${(error as Error).message}`, error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw fail("", `${path} is not valid JSON: ${(error as Error).message}`, error);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    // Checked before the command line's overrides are spread over it, which would hide it.
    const error = invalidOption("scenario", 'a JSON object such as { "durationMs": 60000 }', parsed);
    throw fail("", `${path}: ${error.message}`, error);
  }
  const defined = Object.entries(overrides).filter(([, value]) => value !== undefined);
  const raw: Scenario = { ...(parsed as Scenario), ...Object.fromEntries(defined) };
  try {
    return { raw, resolved: resolveScenario(raw) };
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    throw fail(error.field, `${path}: ${error.message}`, error);
  }
}
