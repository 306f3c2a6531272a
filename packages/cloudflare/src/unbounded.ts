import type { WireConfig } from "./wire.js";

/**
 * The configuration with no limit, reserve, cap or quota: what lets every stored lease come back at a
 * restart (each held when it was granted, whatever the limits are now) before the real one applies.
 */
export function unbounded(config: WireConfig): WireConfig {
  const none = Number.POSITIVE_INFINITY;
  const open = { maxConcurrency: none, maxQueue: none, tokensPerMinute: none, burstTokens: none };
  return {
    ...config,
    maxConcurrency: Number.MAX_SAFE_INTEGER,
    maxQueue: none,
    maxTokensInFlight: none,
    priorities: config.priorities.map((p) => ({ ...p, reserved: 0, maxConcurrency: none, maxQueue: none })),
    tenantDefaults: { ...config.tenantDefaults, ...open },
    tenantQuotas: new Map([...config.tenantQuotas].map(([name, quota]) => [name, { ...quota, ...open }])),
  };
}
