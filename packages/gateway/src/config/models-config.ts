import {
  type AdaptiveOptions,
  type ConcurrencyRange,
  createScheduler,
  isSchedulerError,
  type SchedulerOptions,
  type TenantOptions,
} from "@llm-scheduler/core";
import { checkPoolOptions, type ReplicaOptions } from "@llm-scheduler/pool";
import { ConfigError } from "./errors.js";
import type { ResolvedKey } from "./keys-config.js";
import type { ModelConfig } from "./schema.js";
import { upstreamBase } from "./upstream-url.js";

/** How the request's priority goes upstream in the body (vLLM's `priority`). */
export interface PassPriority {
  readonly field: string;
  readonly values: Readonly<Record<string, number>>;
}

/**
 * A model's `pool` block as given (the pool fills in its defaults), `health.intervalMs` defaulting to
 * the file's `probeIntervalMs`; `maxConcurrency` caps the scheduler's limit below the replicas' sum.
 */
export type ResolvedPoolSection = NonNullable<ModelConfig["pool"]>;

/** One model as the gateway serves it. */
export interface ResolvedModel {
  readonly name: string;
  /** The pool's replicas: bases without `/v1`, ids (the URL without credentials unless given), limits. */
  readonly replicas: readonly ReplicaOptions[];
  /** How requests are spread over them. */
  readonly pool: ResolvedPoolSection;
  readonly upstreamModel: string;
  readonly upstreamApiKey: string | undefined;
  readonly timeoutMs: number;
  readonly passPriority: PassPriority | undefined;
  /**
   * What `createScheduler()` gets: the keys' tenants merged in, `maxConcurrency` the replicas' limits
   * together (their floors when adaptive; the pool moves it as replicas come and go), no `adaptive`.
   */
  readonly scheduler: SchedulerOptions;
  /** The priorities configured, most urgent first. */
  readonly priorities: readonly string[];
  readonly defaultPriority: string;
}

/** The least a replica's limit can be: a fixed limit, or an adaptive range's floor. */
function floorOf(limit: number | ConcurrencyRange): number {
  return typeof limit === "number" ? limit : limit.min;
}

/** A replica's id when none is given: its URL without credentials (ids name it in metrics and in Redis). */
function idOf(base: string): string {
  return base.replace(/^(https?:\/\/)[^@/]*@/, "$1");
}

/** The replicas of `upstreams`: URL strings or objects, limits defaulting to the model's. */
function replicasOf(
  name: string,
  upstreams: NonNullable<ModelConfig["upstreams"]>,
  limit: number | ConcurrencyRange,
  adaptive: AdaptiveOptions | undefined,
): ReplicaOptions[] {
  const seen = new Set<string>();
  return upstreams.map((entry, index) => {
    const given = typeof entry === "string" ? { url: entry } : entry;
    const url = upstreamBase(given.url);
    const id = given.id ?? idOf(url);
    const at = `models.${name}.upstreams[${index}]`;
    if (id.length > 128)
      throw new ConfigError(`${at}: its URL is longer than 128 characters; give it an \`id\``);
    if (seen.has(id)) throw new ConfigError(`${at}: the replica \`${id}\` is listed twice`);
    seen.add(id);
    const ownAdaptive = given.adaptive ?? (given.maxConcurrency === undefined ? adaptive : undefined);
    return {
      url,
      id,
      maxConcurrency: given.maxConcurrency ?? limit,
      ...(ownAdaptive === undefined ? {} : { adaptive: ownAdaptive }),
    };
  });
}

/** The pool's error with its path in the file (`replicas[1].x` -> `models.m.upstreams[1].x`, `health.x` -> `models.m.pool.health.x`). */
function underPool(name: string, error: unknown): ConfigError {
  const message = error instanceof Error ? error.message : String(error);
  const prefixed = message.replace(/`([^`]+)`/, (_m, path: string) =>
    path.startsWith("replicas[")
      ? `\`models.${name}.upstreams${path.slice("replicas".length)}\``
      : `\`models.${name}.pool.${path}\``,
  );
  return new ConfigError(prefixed, { cause: error });
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
  probeIntervalMs: number,
): ResolvedModel {
  const { upstreams, upstreamModel, upstreamApiKey, timeoutMs, passPriority, pool, ...options } = given;
  if (upstreams === undefined) throw new ConfigError(`models.${name}.upstreams: required (one URL at least)`);
  const { maxConcurrency, adaptive, ...rest } = options;
  const replicas = replicasOf(name, upstreams, maxConcurrency ?? 8, adaptive);
  const health = pool?.health;
  const section: ResolvedPoolSection = {
    ...pool,
    health: health === false ? false : { intervalMs: probeIntervalMs, ...health },
  };
  try {
    checkPoolOptions({ replicas, ...section, health: section.health, signals: section.signals });
  } catch (error) {
    if (isSchedulerError(error)) throw underPool(name, error);
    throw error;
  }
  const floors = replicas.reduce((sum, replica) => sum + floorOf(replica.maxConcurrency), 0);
  const scheduler: SchedulerOptions = {
    ...rest,
    maxConcurrency: Math.min(floors, section.maxConcurrency ?? floors),
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
    replicas,
    pool: section,
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
