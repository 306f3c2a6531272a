import { WAIT_TARGETS } from "../option-schema.js";
import { type InferShape, type Resolved, withDefaults } from "../schema/schema.js";

/** How the wait-target controller works (see `PriorityOptions.targetWaitMs`); every field is optional. */
export type WaitTargetOptions = InferShape<typeof WAIT_TARGETS>;

/** The controller's settings after defaults and validation, with `targetWaitMs` by priority name (for those that have one). */
export type ResolvedWaitTargets = Resolved<typeof WAIT_TARGETS> & {
  readonly targets: ReadonlyMap<string, number>;
};

/**
 * The controller's settings from options the schema has checked (`waitTargets` and each priority's
 * `targetWaitMs`, see option-schema.ts), with the declared defaults under what is not given.
 *
 * @example
 * resolveWaitTargets({ windowMs: 2_000 }, { interactive: { targetWaitMs: 500 }, batch: {} });
 */
export function resolveWaitTargets(
  checked: WaitTargetOptions | undefined,
  priorities: Readonly<Record<string, { readonly targetWaitMs?: number | undefined }>>,
): ResolvedWaitTargets {
  const targets = new Map<string, number>();
  for (const [name, fields] of Object.entries(priorities)) {
    if (fields.targetWaitMs !== undefined) targets.set(name, fields.targetWaitMs);
  }
  return { targets, ...withDefaults(WAIT_TARGETS, checked ?? {}) };
}
