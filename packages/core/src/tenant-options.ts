import type { TenantOptions } from "./options.js";
import { shortKey } from "./short-key.js";
import type { ResolvedTenant } from "./store.js";
import { invalidOption } from "./validate.js";

/** A tenant with no quota at all: what a tenant gets when neither `tenantDefaults` nor `tenants` says more. */
export const UNLIMITED_TENANT: ResolvedTenant = {
  weight: 1,
  maxConcurrency: Number.POSITIVE_INFINITY,
  maxQueue: Number.POSITIVE_INFINITY,
  tokensPerMinute: Number.POSITIVE_INFINITY,
  burstTokens: Number.POSITIVE_INFINITY,
  maxPriority: undefined,
};

/** One tenant entry's fields (checked by the schema already), with `maxPriority` a configured name. */
function checkedFields(
  field: string,
  given: TenantOptions,
  priorities: readonly string[],
): Partial<ResolvedTenant> {
  if (given.maxPriority !== undefined && !priorities.includes(given.maxPriority)) {
    const list = priorities.map((name) => `\`${name}\``).join(", ");
    throw invalidOption(`${field}.maxPriority`, `one of ${list}`, given.maxPriority);
  }
  return given;
}

/** Fills in a tenant's bucket size (a tenth of its rate) and drops the bucket when the rate is unlimited. */
function withBucket(tenant: Omit<ResolvedTenant, "burstTokens"> & { burstTokens?: number }): ResolvedTenant {
  const rate = tenant.tokensPerMinute;
  if (rate === Number.POSITIVE_INFINITY) return { ...tenant, burstTokens: Number.POSITIVE_INFINITY };
  return { ...tenant, burstTokens: tenant.burstTokens ?? Math.max(1, Math.ceil(rate / 10)) };
}

/** The resolved tenant settings, as `StoreConfig` carries them. */
interface TenantLayers {
  readonly tenantDefaults: ResolvedTenant;
  readonly tenantQuotas: Map<string, ResolvedTenant>;
  readonly tenantWeights: Map<string, number>;
}

/**
 * Resolves `tenantDefaults` and `tenants`: each named tenant is its own fields over the defaults' fields
 * over {@link UNLIMITED_TENANT}. `priorities` are the configured names, for `maxPriority`.
 *
 * @example
 * const { tenantQuotas } = resolveTenants({ maxQueue: 100 }, { a: { weight: 2 } }, ["interactive"]);
 */
export function resolveTenants(
  rawDefaults: TenantOptions | undefined,
  rawTenants: Readonly<Record<string, TenantOptions>> | undefined,
  priorities: readonly string[],
): TenantLayers {
  const defaults = rawDefaults === undefined ? {} : checkedFields("tenantDefaults", rawDefaults, priorities);
  const tenantDefaults = withBucket({ ...UNLIMITED_TENANT, ...defaults, burstTokens: defaults.burstTokens });
  const tenantQuotas = new Map<string, ResolvedTenant>();
  const tenantWeights = new Map<string, number>();
  if (rawTenants !== undefined) {
    for (const [tenant, options] of Object.entries(rawTenants)) {
      const key = shortKey(tenant);
      const own = checkedFields(`tenants.${key}`, options, priorities);
      const burstTokens =
        own.burstTokens ?? (own.tokensPerMinute === undefined ? defaults.burstTokens : undefined);
      const resolved = withBucket({ ...UNLIMITED_TENANT, ...defaults, ...own, burstTokens });
      tenantQuotas.set(key, resolved);
      tenantWeights.set(key, resolved.weight);
    }
  }
  return { tenantDefaults, tenantQuotas, tenantWeights };
}
