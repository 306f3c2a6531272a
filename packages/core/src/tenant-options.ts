import { TENANT, type TenantOptions } from "./option-schema.js";
import { withDefaults } from "./schema/schema.js";
import { shortKey } from "./short-key.js";
import type { ResolvedTenant, StoreConfig } from "./store.js";
import { invalidOption } from "./validate.js";

/** A tenant with no quota at all: what a tenant gets when neither `tenantDefaults` nor `tenants` says more. */
export const UNLIMITED_TENANT: ResolvedTenant = {
  ...withDefaults(TENANT, {}),
  burstTokens: Number.POSITIVE_INFINITY,
  maxPriority: undefined,
};

/** Refuses a `maxPriority` that is not a configured priority name (the schema checked the rest). */
function checkMaxPriority(field: string, given: TenantOptions, priorities: readonly string[]): void {
  if (given.maxPriority !== undefined && !priorities.includes(given.maxPriority)) {
    const list = priorities.map((name) => `\`${name}\``).join(", ");
    throw invalidOption(`${field}.maxPriority`, `one of ${list}`, given.maxPriority);
  }
}

/** Fills in a tenant's bucket size (a tenth of its rate) and drops the bucket when the rate is unlimited. */
function withBucket(tenant: Omit<ResolvedTenant, "burstTokens"> & { burstTokens?: number }): ResolvedTenant {
  const rate = tenant.tokensPerMinute;
  if (rate === Number.POSITIVE_INFINITY) return { ...tenant, burstTokens: Number.POSITIVE_INFINITY };
  return { ...tenant, burstTokens: tenant.burstTokens ?? Math.max(1, Math.ceil(rate / 10)) };
}

/**
 * Resolves `tenantDefaults` and `tenants`: each named tenant is its own fields over the defaults' fields
 * over {@link UNLIMITED_TENANT}. `priorities` are the configured names, for `maxPriority`.
 *
 * @example
 * const { tenantQuotas } = resolveTenants(["interactive"], { maxQueue: 100 }, { a: { weight: 2 } });
 */
export function resolveTenants(
  priorities: readonly string[],
  defaults: TenantOptions = {},
  tenants: Readonly<Record<string, TenantOptions>> = {},
): Pick<StoreConfig, "tenantDefaults" | "tenantQuotas" | "tenantWeights"> {
  checkMaxPriority("tenantDefaults", defaults, priorities);
  const tenantDefaults = withBucket({ ...UNLIMITED_TENANT, ...defaults, burstTokens: defaults.burstTokens });
  const tenantQuotas = new Map<string, ResolvedTenant>();
  const tenantWeights = new Map<string, number>();
  for (const [tenant, own] of Object.entries(tenants)) {
    const key = shortKey(tenant);
    checkMaxPriority(`tenants.${key}`, own, priorities);
    const burstTokens =
      own.burstTokens ?? (own.tokensPerMinute === undefined ? defaults.burstTokens : undefined);
    const resolved = withBucket({ ...UNLIMITED_TENANT, ...defaults, ...own, burstTokens });
    tenantQuotas.set(key, resolved);
    tenantWeights.set(key, resolved.weight);
  }
  return { tenantDefaults, tenantQuotas, tenantWeights };
}
