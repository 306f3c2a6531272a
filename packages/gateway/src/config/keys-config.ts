import type { TenantOptions } from "@llm-scheduler/core";
import { sha256Hex } from "./digest.js";
import { ConfigError } from "./errors.js";
import type { KeyConfig } from "./schema.js";

/** One key as the gateway looks it up: the SHA-256 of the credential, its tenant and its ceiling. */
export interface ResolvedKey {
  readonly sha256: string;
  readonly tenant: string;
  /** The most urgent priority it may use; `undefined`: the model's default priority. */
  readonly priority: string | undefined;
}

/** The quota fields of a key entry, which become the scheduler's `tenants.<tenant>`. */
const QUOTA_FIELDS = ["weight", "maxConcurrency", "maxQueue", "tokensPerMinute", "burstTokens"] as const;

/** The credential of an entry as a digest: exactly one of `key` and `sha256`. */
export async function digestOf(path: string, entry: { key?: string; sha256?: string }): Promise<string> {
  if ((entry.key === undefined) === (entry.sha256 === undefined)) {
    throw new ConfigError(`${path}: give exactly one of \`key\` and \`sha256\``);
  }
  return entry.key === undefined ? (entry.sha256 as string) : sha256Hex(entry.key);
}

/**
 * The key table and the tenants' quotas it declares. Refuses an entry without a tenant, a key given
 * twice (by value or digest, naming both places), and two keys of one tenant with different quotas.
 */
export async function resolveKeys(
  keys: readonly KeyConfig[],
): Promise<{ keys: readonly ResolvedKey[]; tenants: Readonly<Record<string, TenantOptions>> }> {
  const seen = new Map<string, number>();
  const tenants: Record<string, TenantOptions> = {};
  const quotaOwner = new Map<string, number>();
  const out: ResolvedKey[] = [];
  for (const [index, entry] of keys.entries()) {
    const path = `keys[${index}]`;
    const sha256 = await digestOf(path, entry);
    const before = seen.get(sha256);
    if (before !== undefined) throw new ConfigError(`${path}: the same key as keys[${before}]`);
    seen.set(sha256, index);
    if (entry.tenant === undefined) throw new ConfigError(`${path}.tenant: required`);
    out.push({ sha256, tenant: entry.tenant, priority: entry.priority });
    const quotas: Record<string, number> = {};
    for (const field of QUOTA_FIELDS) if (entry[field] !== undefined) quotas[field] = entry[field];
    if (Object.keys(quotas).length === 0) continue;
    const owner = quotaOwner.get(entry.tenant);
    if (owner !== undefined && JSON.stringify(tenants[entry.tenant]) !== JSON.stringify(quotas)) {
      throw new ConfigError(
        `${path}: tenant \`${entry.tenant}\` already has other quotas in keys[${owner}] (quotas are per tenant: give them once)`,
      );
    }
    quotaOwner.set(entry.tenant, index);
    Object.defineProperty(tenants, entry.tenant, {
      value: quotas,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { keys: out, tenants };
}
