import type { SweepOutcome } from "./sweep.js";

/** JSON as a scenario writes it: JSON has no infinity, so `Infinity` is the string `"Infinity"`. */
function asJson(value: unknown): string {
  return JSON.stringify(value, (_, v) => (v === Number.POSITIVE_INFINITY ? "Infinity" : v), 2);
}

/** The same turned back into JavaScript, where `Infinity` is a number. */
function asCode(value: unknown): string {
  return asJson(value).replace(/"Infinity"/g, "Infinity");
}

/**
 * The winning configuration of a sweep, ready to paste: the scheduler options as `createScheduler`
 * takes them (the gateway limit as `maxConcurrency`, then the scenario's `scheduler` section), and the
 * same as the scenario's `gateway` and `scheduler` sections. `undefined` when no configuration met the
 * goal: a setting that misses the goal is nothing to copy.
 *
 * @example
 * const paste = winningConfig(outcome);
 * if (paste !== undefined) console.log(paste);
 */
export function winningConfig(outcome: SweepOutcome): string | undefined {
  if (outcome.best === undefined || !outcome.best.met) return undefined;
  const row = outcome.rows[outcome.best.index]!;
  const raw = row.variant.scenario;
  const maxConcurrency = raw.gateway?.maxConcurrency ?? outcome.scenario.maxConcurrency;
  const options = { maxConcurrency, ...raw.scheduler };
  const sections = { gateway: { ...raw.gateway, maxConcurrency }, scheduler: raw.scheduler ?? {} };
  const scenarioJson = asJson(sections).slice(1, -1).trimEnd();
  return [
    `winning configuration (${row.variant.label}), as scheduler options:`,
    "",
    `createScheduler(${asCode(options)});`,
    "",
    "or as the scenario's sections:",
    scenarioJson,
  ].join("\n");
}
