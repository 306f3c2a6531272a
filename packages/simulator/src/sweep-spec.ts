import { createScheduler } from "@llm-scheduler/core";
import type { Scenario } from "./scenario.js";
import { ScenarioError } from "./scenario-error.js";

/** One swept setting: a scenario field and the values to try. */
export interface SweepAxis {
  /** As written: `batch.weight`. */
  readonly name: string;
  /** Where it lands in the scenario: `["scheduler", "priorities", "batch", "weight"]`. */
  readonly path: readonly string[];
  readonly values: readonly unknown[];
}

/** One combination of swept values. */
export interface SweepVariant {
  /** `batch.weight=2 interactive.reserved=1` */
  readonly label: string;
  readonly settings: readonly { readonly name: string; readonly value: unknown }[];
  readonly scenario: Scenario;
}

const MAX_VARIANTS = 500;

function parseValue(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === "Infinity") return "Infinity";
  if (trimmed !== "" && !Number.isNaN(Number(trimmed))) return Number(trimmed);
  if (trimmed === "true" || trimmed === "false") return trimmed === "true";
  return trimmed;
}

/**
 * Where a short name lands: `<priority>.<field>` is a field of that scheduler priority,
 * `maxConcurrency` is `gateway.maxConcurrency`, anything else is a path from the scenario's root
 * (`chat.timeoutMs`, `scheduler.tenants.indexer.weight`, `upstream.parallel`).
 */
function pathOf(name: string, priorities: readonly string[]): string[] {
  const parts = name.split(".");
  if (parts.some((part) => part === "")) throw new ScenarioError(name, `Invalid sweep setting \`${name}\``);
  if (parts.length === 1 && parts[0] === "maxConcurrency") return ["gateway", "maxConcurrency"];
  if (parts.length === 2 && priorities.includes(parts[0]!)) return ["scheduler", "priorities", ...parts];
  return parts;
}

/**
 * Parses `--sweep` settings such as `batch.weight=1,2,4` and `interactive.reserved=0,1,2`.
 *
 * @example
 * parseSweep(["batch.weight=1,2,4"], ["interactive", "batch"]);
 * // [{ name: "batch.weight", path: ["scheduler", "priorities", "batch", "weight"], values: [1, 2, 4] }]
 */
export function parseSweep(specs: readonly string[], priorities: readonly string[]): SweepAxis[] {
  return specs.map((spec) => {
    const equals = spec.indexOf("=");
    if (equals <= 0 || equals === spec.length - 1) {
      throw new ScenarioError(
        spec,
        `Expected a sweep setting such as \`batch.weight=1,2,4\`, got \`${spec}\``,
      );
    }
    const name = spec.slice(0, equals).trim();
    const values = spec
      .slice(equals + 1)
      .split(",")
      .map(parseValue);
    return { name, path: pathOf(name, priorities), values };
  });
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const child = node[key];
    const copy = typeof child === "object" && child !== null && !Array.isArray(child) ? { ...child } : {};
    node[key] = copy;
    node = copy as Record<string, unknown>;
  }
  node[path.at(-1)!] = value;
}

/** A scenario whose scheduler priorities are written out, so one field can be changed without losing the rest. */
function withExplicitPriorities(scenario: Scenario, maxConcurrency: number): Scenario {
  if (scenario.scheduler?.priorities !== undefined) return scenario;
  const resolved = createScheduler({ maxConcurrency }).options.priorities;
  const priorities = Object.fromEntries(
    resolved.map(({ name, weight, reserved, queueTimeoutMs, maxQueue, maxWaitMs, ...rest }) => [
      name,
      rest.maxConcurrency === maxConcurrency
        ? { weight, reserved, queueTimeoutMs, maxQueue, maxWaitMs }
        : { weight, reserved, queueTimeoutMs, maxQueue, maxWaitMs, maxConcurrency: rest.maxConcurrency },
    ]),
  );
  return { ...scenario, scheduler: { ...scenario.scheduler, priorities } };
}

/**
 * Every combination of the axes' values applied to `scenario` (the scenario as written, before
 * defaults), in order: the first axis changes slowest.
 *
 * @example
 * sweepVariants(scenario, 8, parseSweep(["batch.weight=1,2", "interactive.reserved=0,1"], names)).length; // 4
 */
export function sweepVariants(
  scenario: Scenario,
  maxConcurrency: number,
  axes: readonly SweepAxis[],
): SweepVariant[] {
  const count = axes.reduce((n, axis) => n * axis.values.length, 1);
  if (count > MAX_VARIANTS) {
    throw new ScenarioError(
      "sweep",
      `The sweep has ${count} combinations; at most ${MAX_VARIANTS} are allowed`,
    );
  }
  const base = withExplicitPriorities(scenario, maxConcurrency);
  let combos: { name: string; value: unknown; path: readonly string[] }[][] = [[]];
  for (const axis of axes) {
    combos = combos.flatMap((combo) =>
      axis.values.map((value) => [...combo, { name: axis.name, value, path: axis.path }]),
    );
  }
  return combos.map((combo) => {
    const copy = structuredClone(base) as unknown as Record<string, unknown>;
    for (const setting of combo) setPath(copy, setting.path, setting.value);
    return {
      label: combo.map((setting) => `${setting.name}=${String(setting.value)}`).join(" "),
      settings: combo.map(({ name, value }) => ({ name, value })),
      scenario: copy as unknown as Scenario,
    };
  });
}
