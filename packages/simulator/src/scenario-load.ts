import { readFile } from "node:fs/promises";
import type { ResolvedScenario, Scenario } from "./scenario.js";
import { invalidField, ScenarioError } from "./scenario-error.js";
import { resolveScenario } from "./scenario-resolve.js";

/** A scenario file as written, and validated with every default filled in. */
export interface LoadedScenario {
  readonly raw: Scenario;
  readonly resolved: ResolvedScenario;
}

/** Changes made on the command line on top of the file. */
export interface ScenarioOverrides {
  readonly seed?: number;
  readonly durationMs?: number;
}

/**
 * Applies command-line overrides to a scenario as written (before validation).
 *
 * @example
 * withOverrides(raw, { seed: 7 }).seed; // 7
 */
export function withOverrides(raw: Scenario, overrides: ScenarioOverrides): Scenario {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return { ...raw, ...defined };
}

/**
 * Reads, parses and validates a scenario JSON file. Errors are {@link ScenarioError}s prefixed with
 * the file name, naming the bad field: ``demo.json: Expected `chat.timeoutMs` to be a number > 0 ...``.
 *
 * @example
 * const { resolved } = await loadScenarioFile("examples/scenarios/demo.json", { seed: 2 });
 */
export async function loadScenarioFile(
  path: string,
  overrides: ScenarioOverrides = {},
): Promise<LoadedScenario> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ScenarioError("", `Cannot read scenario file ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ScenarioError("", `${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    // Checked before the command line's overrides are spread over it, which would hide it.
    const error = invalidField("", 'a JSON object such as { "durationMs": 60000 }', parsed);
    throw new ScenarioError("", `${path}: ${error.message}`, { cause: error });
  }
  try {
    const raw = withOverrides(parsed as Scenario, overrides);
    return { raw, resolved: resolveScenario(raw) };
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    throw new ScenarioError(error.field, `${path}: ${error.message}`, { cause: error });
  }
}
