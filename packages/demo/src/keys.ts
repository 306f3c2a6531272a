import type { ResolvedScenario } from "@llm-scheduler/simulator";

/** Who an API key belongs to and which priority it gets. */
export interface KeyEntry {
  readonly tenant: string;
  readonly priority: string;
}

/**
 * The API key the demo's clients send for a tenant.
 *
 * @example
 * keyOf("indexer"); // "sk-demo-key-of-indexer"
 */
export function keyOf(tenant: string): string {
  // at least 16 characters, as the gateway wants of a key
  return `sk-demo-key-of-${tenant}`;
}

/**
 * The gateway's table of API keys, as an operator would configure it: the chat application's key gets
 * the chat priority, each batch tenant's key the batch priority.
 *
 * @example
 * keysFor(scenario).get("sk-demo-key-of-indexer"); // { tenant: "indexer", priority: "batch" }
 */
export function keysFor(scenario: ResolvedScenario): Map<string, KeyEntry> {
  const keys = new Map<string, KeyEntry>();
  keys.set(keyOf(scenario.chat.tenant), { tenant: scenario.chat.tenant, priority: scenario.chat.priority });
  for (const tenant of scenario.batch.tenants) {
    keys.set(keyOf(tenant.name), { tenant: tenant.name, priority: scenario.batch.priority });
  }
  return keys;
}

/**
 * The bearer token of an `Authorization` header, if any.
 *
 * @example
 * bearerOf("Bearer sk-1"); // "sk-1"
 */
export function bearerOf(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? "");
  return match?.[1]?.trim();
}
