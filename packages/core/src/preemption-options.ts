import type { PreemptibleOptions } from "./option-schema.js";
import type { StoreAbilities } from "./store.js";
import { invalidOption } from "./validate.js";

export type { PreemptibleOptions } from "./option-schema.js";

/** Preemption as the scheduler applies it; `null` in `ResolvedOptions.preemption` when off. */
export interface ResolvedPreemption {
  /** For each priority that preempts: the priorities whose running tasks it may stop. */
  readonly preempts: ReadonlyMap<string, ReadonlySet<string>>;
  /** For each priority that may be preempted: the preemptions after which a task is immune. */
  readonly maxPerTask: ReadonlyMap<string, number>;
}

const DEFAULT_MAX_PER_TASK = 2;

/**
 * Reads `preempts` and `preemptible` of every priority: names must be configured priorities other than
 * the priority itself (`preemptible` is checked by the schema). A priority named in some `preempts` without
 * a `preemptible` entry of its own gets the defaults. Returns `null` when no priority preempts.
 */
export function resolvePreemption(
  raw: Readonly<Record<string, unknown>>,
  names: readonly string[],
): ResolvedPreemption | null {
  const preempts = new Map<string, ReadonlySet<string>>();
  const maxPerTask = new Map<string, number>();
  for (const name of names) {
    const priority = raw[name] as { preempts?: unknown; preemptible?: unknown } | undefined;
    if (priority?.preempts !== undefined) preempts.set(name, targetsOf(name, priority.preempts, names));
    if (priority?.preemptible !== undefined) maxPerTask.set(name, maxPerTaskOf(priority.preemptible));
  }
  if (preempts.size === 0) return null;
  for (const targets of preempts.values()) {
    for (const target of targets) if (!maxPerTask.has(target)) maxPerTask.set(target, DEFAULT_MAX_PER_TASK);
  }
  return { preempts, maxPerTask };
}

function targetsOf(name: string, value: unknown, names: readonly string[]): ReadonlySet<string> {
  const field = `priorities.${name}.preempts`;
  if (!Array.isArray(value)) throw invalidOption(field, "an array of priority names", value);
  const targets = new Set<string>();
  for (const target of value) {
    if (typeof target !== "string" || !names.includes(target)) {
      const known = names.map((known) => `\`${known}\``).join(", ");
      throw invalidOption(field, `names of configured priorities (${known})`, target);
    }
    if (target === name) throw invalidOption(field, "other priorities than itself", target);
    targets.add(target);
  }
  return targets;
}

function maxPerTaskOf(value: unknown): number {
  return (value as PreemptibleOptions).maxPerTask ?? DEFAULT_MAX_PER_TASK;
}

/**
 * Preemption needs a store that hands a slot over and takes a preempted ticket back; throws
 * `INVALID_OPTION` when it is configured for a store without them.
 */
export function checkPreemptionStore(preemption: ResolvedPreemption | null, store: StoreAbilities): void {
  if (preemption === null || store.preemption) return;
  const [name] = preemption.preempts.keys();
  throw invalidOption(
    `priorities.${name}.preempts`,
    "unset with this store (it cannot hand a slot over to the arrival; use the in-memory store)",
    [...preemption.preempts.get(name!)!],
  );
}
