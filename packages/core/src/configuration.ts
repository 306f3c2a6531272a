import { splitLimitUpdate } from "./adaptive/update.js";
import {
  defaultPriorities,
  type ResolvedOptions,
  type SchedulerOptions,
  type SchedulerUpdate,
} from "./options.js";
import { mergeUpdate, resolveOptions } from "./resolve-options.js";
import type { StoreAbilities } from "./store.js";
import { invalidOption } from "./validate.js";

/**
 * One whole configuration of a scheduler, frozen: the options as given (with every accepted update
 * merged in) and what they resolve to, checked against the store's abilities. The scheduler holds one
 * and replaces it whole; its parts read `options` from it and keep no copy to keep in step.
 */
export interface Configuration {
  /** The options as given, with every accepted update merged in: what the next update merges over. */
  readonly given: SchedulerOptions;
  /** The same, after defaults and validation: what `scheduler.options` shows. */
  readonly options: ResolvedOptions;
}

/**
 * Resolves the options a scheduler is created with and checks them against its store: throws
 * `INVALID_OPTION` (a `SchedulerError`) for anything either refuses.
 *
 * @example
 * const configuration = configurationOf({ maxConcurrency: 4 }, storeAbilities(new MemoryStore()));
 */
export function configurationOf(given: SchedulerOptions, abilities: StoreAbilities): Configuration {
  const options = resolveOptions(given);
  // The priorities the defaults gave are written down: an update merges over them.
  const priorities = given.priorities ?? defaultPriorities(options.adaptive?.max ?? options.maxConcurrency);
  return settled({ ...given, priorities }, options, abilities);
}

/**
 * Plans an update whole before anything changes: merges it over `current`, resolves and validates the
 * result like new options, and checks it against the store's abilities. Throws `INVALID_OPTION`
 * synchronously for anything refused, `current` untouched; the caller commits the plan (the `next`
 * configuration, and the limit an adaptive limit goes on from when the update names one), which cannot
 * be refused any more.
 *
 * @example
 * const plan = planUpdate(current, { priorities: { batch: { weight: 2 } } }, abilities); // throws, or a plan
 */
export function planUpdate(current: Configuration, update: SchedulerUpdate, abilities: StoreAbilities) {
  const { update: rest, setTo } = splitLimitUpdate(current.given, update);
  const given = mergeUpdate(current.given, rest);
  return { next: settled(given, resolveOptions(given), abilities), setTo };
}

/**
 * Checks `options` against the store and freezes the pair (the parts it is built from, not the user's).
 * Preemption needs a store that hands a slot over and takes a preempted ticket back.
 */
function settled(
  given: SchedulerOptions,
  options: ResolvedOptions,
  abilities: StoreAbilities,
): Configuration {
  const { preemption } = options;
  if (preemption !== null && !abilities.preemption) {
    const [name] = preemption.preempts.keys();
    throw invalidOption(
      `priorities.${name}.preempts`,
      "unset with this store (it cannot hand a slot over to the arrival; use the in-memory store)",
      [...preemption.preempts.get(name!)!],
    );
  }
  for (const priority of options.priorities) Object.freeze(priority);
  Object.freeze(options.priorities);
  return Object.freeze({ given: Object.freeze(given), options: Object.freeze(options) });
}
