import { type ResolvedOptions, storeConfigOf } from "./options.js";
import type { ResolvedTenant, StoreConfig } from "./store.js";

/**
 * Values that the scheduler's automatic controls set while it runs, over the configured options: the
 * adaptive limit and the tenants' back-off after their own 429s. Each control writes its own field; every store configuration is built from the
 * options and these together by {@link effectiveStoreConfig}, so that `update()` never undoes them.
 */
export interface LiveSettings {
  /** The adaptive limit in force (see `LimitController`). */
  readonly maxConcurrency?: number;
  /** Tenants held back after 429s of their own, with their concurrency (see `TenantBackoff`). */
  readonly tenantCaps?: ReadonlyMap<string, number>;
}

/** The tenants' quotas with each held tenant's `maxConcurrency` lowered to its cap. */
function heldQuotas(config: StoreConfig, caps: ReadonlyMap<string, number>): Map<string, ResolvedTenant> {
  const quotas = new Map(config.tenantQuotas);
  for (const [tenant, cap] of caps) {
    const quota = quotas.get(tenant) ?? config.tenantDefaults;
    if (cap < quota.maxConcurrency) quotas.set(tenant, { ...quota, maxConcurrency: cap });
  }
  return quotas;
}

/**
 * The configuration the store works from: the resolved options with the live settings over them.
 *
 * @example
 * store.configure(effectiveStoreConfig(options, { maxConcurrency: controller.limit }));
 */
export function effectiveStoreConfig(options: ResolvedOptions, live: LiveSettings): StoreConfig {
  let config = storeConfigOf(options);
  if (live.maxConcurrency !== undefined) config = { ...config, maxConcurrency: live.maxConcurrency };
  if (live.tenantCaps !== undefined && live.tenantCaps.size > 0) {
    config = { ...config, tenantQuotas: heldQuotas(config, live.tenantCaps) };
  }
  return config;
}
