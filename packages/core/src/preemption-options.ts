import { PREEMPTIBLE, type PriorityOptions } from "./option-schema.js";
import { withDefaults } from "./schema/schema.js";
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

/**
 * Reads `preempts` and `preemptible` of every priority (checked by the schema): `preempts` must name
 * configured priorities other than the priority itself. A priority named in some `preempts` without a
 * `preemptible` entry of its own gets the defaults. Returns `null` when no priority preempts.
 */
export function resolvePreemption(
  priorities: Readonly<Record<string, PriorityOptions>>,
): ResolvedPreemption | null {
  const names = Object.keys(priorities);
  const preempts = new Map<string, ReadonlySet<string>>();
  for (const [name, { preempts: targets }] of Object.entries(priorities))
    if (targets !== undefined) preempts.set(name, targetsOf(name, targets, names));
  if (preempts.size === 0) return null;
  const targeted = new Set([...preempts.values()].flatMap((targets) => [...targets]));
  const maxPerTask = new Map<string, number>();
  for (const [name, { preemptible }] of Object.entries(priorities))
    if (preemptible !== undefined || targeted.has(name))
      maxPerTask.set(name, withDefaults(PREEMPTIBLE, preemptible ?? {}).maxPerTask);
  return { preempts, maxPerTask };
}

function targetsOf(name: string, targets: readonly string[], names: readonly string[]): ReadonlySet<string> {
  const field = `priorities.${name}.preempts`;
  for (const target of targets) {
    if (!names.includes(target)) {
      const known = names.map((known) => `\`${known}\``).join(", ");
      throw invalidOption(field, `names of configured priorities (${known})`, target);
    }
    if (target === name) throw invalidOption(field, "other priorities than itself", target);
  }
  return new Set(targets);
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
