import type { ResolvedTenant, StoreConfig } from "@llm-scheduler/core/kit";
import { invalidOption } from "@llm-scheduler/core/kit";

const QUOTAS = ["maxConcurrency", "maxQueue", "tokensPerMinute"] as const;

function quotaOf(path: string, tenant: ResolvedTenant): string | undefined {
  const field = QUOTAS.find((name) => tenant[name] !== Number.POSITIVE_INFINITY);
  return field === undefined ? undefined : `${path}.${field}`;
}

/**
 * Refuses, with `INVALID_OPTION`, the options this store does not enforce yet across instances (tenant
 * `maxConcurrency`, `maxQueue` and `tokensPerMinute`, `maxTokensInFlight`, `fairness: "tokens"`), so
 * that none of them is accepted and silently ignored. Tenant weights and `maxPriority` (applied by the
 * scheduler before a task reaches the store) work as everywhere.
 *
 * @example
 * refuseUnenforced(config); // throws for { fairness: "tokens", ... }
 */
export function refuseUnenforced(config: StoreConfig): void {
  if (config.fairness === "tokens") unenforced("fairness", config.fairness);
  if (config.maxTokensInFlight !== Number.POSITIVE_INFINITY) {
    unenforced("maxTokensInFlight", config.maxTokensInFlight);
  }
  const fromDefaults = quotaOf("tenantDefaults", config.tenantDefaults);
  if (fromDefaults !== undefined) unenforced(fromDefaults, fieldValue(config.tenantDefaults, fromDefaults));
  for (const [name, tenant] of config.tenantQuotas) {
    const field = quotaOf(`tenants.${name}`, tenant);
    if (field !== undefined) unenforced(field, fieldValue(tenant, field));
  }
}

function unenforced(field: string, value: unknown): never {
  throw invalidOption(field, "unset with the Redis store (not enforced across instances yet)", value);
}

function fieldValue(tenant: ResolvedTenant, path: string): unknown {
  return tenant[path.slice(path.lastIndexOf(".") + 1) as keyof ResolvedTenant];
}
