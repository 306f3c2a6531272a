import {
  type ConcurrencyRange,
  createScheduler,
  isSchedulerError,
  type SchedulerOptions,
  type TenantOptions,
} from "@llm-scheduler/core";
import { ConfigError } from "./errors.js";
import type { ResolvedKey } from "./keys-config.js";
import type { ModelConfig } from "./schema.js";
import { upstreamBase } from "./upstream-url.js";

/** How the request's priority goes upstream in the body (vLLM's `priority`). */
export interface PassPriority {
  readonly field: string;
  readonly values: Readonly<Record<string, number>>;
}

/** One model as the gateway serves it. */
export interface ResolvedModel {
  readonly name: string;
  /** Server bases without `/v1`. */
  readonly upstreams: readonly string[];
  readonly upstreamModel: string;
  readonly upstreamApiKey: string | undefined;
  readonly timeoutMs: number;
  readonly passPriority: PassPriority | undefined;
  /** What `createScheduler()` gets: `maxConcurrency` for all servers together, the keys' tenants merged in. */
  readonly scheduler: SchedulerOptions;
  /** The priorities configured, most urgent first. */
  readonly priorities: readonly string[];
  readonly defaultPriority: string;
}

/** `maxConcurrency` per server, times the servers: the scheduler's limit for the model. */
function scaled(limit: number | ConcurrencyRange | undefined, servers: number): number | ConcurrencyRange {
  if (limit === undefined) return 8 * servers;
  if (typeof limit === "number") return limit * servers;
  const { initial, min, max } = limit;
  return {
    ...(initial === undefined ? {} : { initial: initial * servers }),
    min: min * servers,
    max: max * servers,
  };
}

/** The scheduler's error with its path under the model (`priorities.x` -> `models.m.priorities.x`). */
function underModel(name: string, error: unknown): ConfigError {
  const message = error instanceof Error ? error.message : String(error);
  const prefixed = message.replace(/`([^`]+)`/, (_m, path: string) => `\`models.${name}.${path}\``);
  return new ConfigError(prefixed, { cause: error });
}

/**
 * One model's section resolved and checked by the scheduler itself (a throwaway `createScheduler()`,
 * closed at once), so that every rule of the library holds: reserved slots within the limit, preemption
 * names, the adaptive range. The keys' priorities must be the model's.
 */
export function resolveModel(
  name: string,
  given: ModelConfig,
  keys: readonly ResolvedKey[],
  tenants: Readonly<Record<string, TenantOptions>>,
): ResolvedModel {
  const { upstreams, upstreamModel, upstreamApiKey, timeoutMs, passPriority, ...options } = given;
  if (upstreams === undefined) throw new ConfigError(`models.${name}.upstreams: required (one URL at least)`);
  const scheduler: SchedulerOptions = {
    ...options,
    maxConcurrency: scaled(options.maxConcurrency, upstreams.length),
    tenants: { ...tenants, ...options.tenants },
  };
  let priorities: readonly string[];
  let defaultPriority: string;
  try {
    const probe = createScheduler(scheduler);
    priorities = probe.options.priorities.map((p) => p.name);
    defaultPriority = probe.options.defaultPriority;
    void probe.close();
  } catch (error) {
    if (isSchedulerError(error)) throw underModel(name, error);
    throw error;
  }
  for (const [index, key] of keys.entries()) {
    if (key.priority !== undefined && !priorities.includes(key.priority)) {
      throw new ConfigError(
        `keys[${index}].priority: \`${key.priority}\` is not a priority of model \`${name}\` (${priorities.join(", ")})`,
      );
    }
  }
  for (const priority of Object.keys(passPriority?.values ?? {})) {
    if (!priorities.includes(priority)) {
      throw new ConfigError(`models.${name}.passPriority.values.${priority}: not a priority of this model`);
    }
  }
  return {
    name,
    upstreams: upstreams.map(upstreamBase),
    upstreamModel: upstreamModel ?? name,
    upstreamApiKey,
    timeoutMs: timeoutMs ?? 600_000,
    passPriority:
      passPriority === undefined
        ? undefined
        : { field: passPriority.field ?? "priority", values: passPriority.values ?? {} },
    scheduler,
    priorities,
    defaultPriority,
  };
}
