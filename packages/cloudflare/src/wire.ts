import type { ResolvedPriority } from "@llm-scheduler/core";
import type { EnqueueResult, ResolvedTenant, StoreConfig, TokenUsage } from "@llm-scheduler/core/kit";

/** Whose clock ages tickets in the object: its own (`"object"`), or the one the schedulers send. */
export type AgingClock = "object" | "scheduler";

/** A scheduler's {@link StoreConfig} without its clock, plus what the object needs of the client's options. */
export interface WireConfig extends Omit<StoreConfig, "clock"> {
  readonly leaseMs: number;
  readonly agingClock: AgingClock;
}

/** A ticket as it travels: `key` is `<client>:<seq>`, unique among every isolate's tickets. */
export interface WireTicket {
  readonly key: string;
  readonly priority: string;
  readonly tenant: string;
  readonly cost: number;
  readonly tokens?: number;
  readonly retry: boolean;
  readonly enqueuedAt: number;
}

/** What every call carries besides its operation. */
interface Envelope {
  /** The calling store's id (one per isolate's scheduler). */
  readonly client: string;
  /** The caller's clock, read when it sent the call. */
  readonly now: number;
  /** Sent with the first call, after `configure`, and when the object answers `unconfigured`. */
  readonly config?: WireConfig;
  /** Keys of the caller's running tickets whose leases it renews with this call. */
  readonly renew?: readonly string[];
}

/** One call to the object; every call is answered with a {@link Reply}. */
export type Message = Envelope &
  (
    | { readonly op: "configure" | "renew" | "removeAll" | "leave" }
    | { readonly op: "enqueue"; readonly ticket: WireTicket }
    | { readonly op: "wait"; readonly ticket: WireTicket; readonly epoch: number; readonly waitMs: number }
    | { readonly op: "remove" | "release"; readonly key: string }
    | { readonly op: "usage"; readonly ticket: WireTicket; readonly usage: TokenUsage }
  );

/** The object's global counts, as `snapshot()` and `depth()` answer them between calls. */
export interface Counts {
  readonly running: number;
  readonly queued: number;
  readonly priorities: Readonly<Record<string, { readonly running: number; readonly queued: number }>>;
}

/** The object's answer to any call. */
export interface Reply {
  /** The object has no configuration: the call did nothing and must be sent again with one. */
  readonly unconfigured?: true;
  /** Which life of the object answered (incremented on every restart, kept in its storage). */
  readonly epoch: number;
  readonly counts: Counts;
  /**
   * The caller's tickets granted since its last reply, in grant order: each key with what is left of
   * its lease, in ms, when the reply was made (the caller's clock and the object's need not agree).
   */
  readonly granted: ReadonlyArray<readonly [key: string, leaseLeftMs: number]>;
  /** Keys the object no longer knows: a running ticket's lease lapsed, or a waiting ticket was dropped. */
  readonly lost: readonly string[];
  /** `enqueue`: the store's answer; `remove`: whether it left the queue; `removeAll`: the keys removed. */
  readonly result?: EnqueueResult;
  readonly removed?: boolean | readonly string[];
  /** The call was refused (an unknown priority: the isolates were configured differently). */
  readonly error?: string;
}

/** The fields of a scheduler's configuration that the object uses, picked so that nothing else travels. */
export function wireConfig(config: StoreConfig, leaseMs: number, agingClock: AgingClock): WireConfig {
  return {
    maxConcurrency: config.maxConcurrency,
    ...(config.adaptiveLimit === true ? { adaptiveLimit: true as const } : {}),
    maxQueue: config.maxQueue,
    priorities: config.priorities.map(priorityOf),
    tenantWeights: new Map(config.tenantWeights),
    maxTokensInFlight: config.maxTokensInFlight,
    fairness: config.fairness,
    outputTokenWeight: config.outputTokenWeight,
    tenantDefaults: tenantOf(config.tenantDefaults),
    tenantQuotas: new Map([...config.tenantQuotas].map(([name, quota]) => [name, tenantOf(quota)])),
    leaseMs,
    agingClock,
  };
}

function priorityOf(p: ResolvedPriority): ResolvedPriority {
  const { name, index, weight, reserved, maxConcurrency, queueTimeoutMs, maxQueue, maxWaitMs } = p;
  return { name, index, weight, reserved, maxConcurrency, queueTimeoutMs, maxQueue, maxWaitMs };
}

function tenantOf(t: ResolvedTenant): ResolvedTenant {
  const { weight, maxConcurrency, maxQueue, tokensPerMinute, burstTokens, maxPriority } = t;
  return { weight, maxConcurrency, maxQueue, tokensPerMinute, burstTokens, maxPriority };
}

/**
 * JSON that keeps what configurations hold and JSON drops: `Infinity` (no bound) and `Map`s (tenant
 * weights and quotas), as one-key objects `{"$inf":1}` and `{"$map":[[k,v],…]}`.
 */
export function encode(value: unknown): string {
  return JSON.stringify(value, function replace(_key, item: unknown) {
    if (item === Number.POSITIVE_INFINITY) return { $inf: 1 };
    if (item instanceof Map) return { $map: [...item] };
    return item;
  });
}

/** The inverse of {@link encode}; throws a `SyntaxError` on text that is not JSON. */
export function decode(text: string): unknown {
  return JSON.parse(text, function revive(_key, item: unknown) {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    const keys = Object.keys(item);
    if (keys.length !== 1) return item;
    const tagged = item as { $inf?: unknown; $map?: unknown };
    if (tagged.$inf === 1) return Number.POSITIVE_INFINITY;
    if (Array.isArray(tagged.$map)) return new Map(tagged.$map as Array<[unknown, unknown]>);
    return item;
  });
}
