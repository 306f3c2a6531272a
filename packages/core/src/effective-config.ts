import { type ResolvedOptions, storeConfigOf } from "./options.js";
import type { StoreConfig } from "./store.js";

/**
 * Values that the scheduler's automatic controls set while it runs, over the configured options: the
 * adaptive limit today. Each control writes its own field; every store configuration is built from the
 * options and these together by {@link effectiveStoreConfig}, so that `update()` never undoes them.
 */
export interface LiveSettings {
  /** The adaptive limit in force (see `LimitController`). */
  readonly maxConcurrency?: number;
}

/**
 * The configuration the store works from: the resolved options with the live settings over them.
 *
 * @example
 * store.configure(effectiveStoreConfig(options, { maxConcurrency: controller.limit }));
 */
export function effectiveStoreConfig(options: ResolvedOptions, live: LiveSettings): StoreConfig {
  const config = storeConfigOf(options);
  return live.maxConcurrency === undefined ? config : { ...config, maxConcurrency: live.maxConcurrency };
}
