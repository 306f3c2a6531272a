import { UNLIMITED_TENANT } from "../resolve-options.js";
import type { ResolvedTenant, StoreConfig } from "../store.js";

/** Idle tenants always kept (see {@link TenantBooks.settled}). */
const KEEP_IDLE = 64;
const MS_PER_MINUTE = 60_000;

/** One tenant's counts over all priorities: running, waiting, tokens and its token bucket. */
export class TenantState {
  readonly name: string;
  quota: ResolvedTenant;
  /** Cost units running. */
  running = 0;
  queued = 0;
  /** Estimated tokens of its running tickets. */
  tokensInFlight = 0;
  /** Estimated tokens of its waiting tickets (already promised by the bucket). */
  pendingTokens = 0;
  /** Tokens in the bucket at `refilledAt` (negative after a correction larger than what was left). */
  level: number;
  refilledAt: number;
  /** Weighted tokens started, corrected by reported usage. */
  served = 0;
  /** Refusals by its quotas. */
  throttled = 0;
  /** Parked: at its `maxConcurrency`, so its queues are out of the picker's turns. */
  capped = false;

  constructor(name: string, quota: ResolvedTenant, now: number) {
    this.name = name;
    this.quota = quota;
    this.level = quota.burstTokens;
    this.refilledAt = now;
  }

  get idle(): boolean {
    return this.running === 0 && this.queued === 0;
  }

  /** The bucket's level now (refilled for the time since the last look). */
  refill(now: number): number {
    const { tokensPerMinute, burstTokens } = this.quota;
    if (tokensPerMinute === Number.POSITIVE_INFINITY) {
      this.level = Number.POSITIVE_INFINITY;
      return this.level;
    }
    if (now > this.refilledAt) {
      const earned = ((now - this.refilledAt) * tokensPerMinute) / MS_PER_MINUTE;
      this.level = Math.min(burstTokens, this.level + earned);
    }
    this.refilledAt = Math.max(this.refilledAt, now);
    return this.level;
  }

  /**
   * 0 when the bucket covers `tokens` on top of what already waits, otherwise the ms until it will. A
   * ticket larger than the whole bucket needs a full bucket and nothing waiting.
   */
  waitForTokens(tokens: number, now: number): number {
    const level = this.refill(now);
    if (level === Number.POSITIVE_INFINITY) return 0;
    const target = Math.min(tokens, this.quota.burstTokens) + this.pendingTokens;
    if (level >= target) return 0;
    return ((target - level) * MS_PER_MINUTE) / this.quota.tokensPerMinute;
  }

  /** True while it may start one more ticket of `cost` under its `maxConcurrency`. */
  hasRoom(cost: number): boolean {
    return this.running + cost <= this.quota.maxConcurrency;
  }
}

/** True when `quota` can refuse, throttle or park its tenant. */
function limits(quota: ResolvedTenant): boolean {
  return (
    quota.maxConcurrency !== Number.POSITIVE_INFINITY ||
    quota.maxQueue !== Number.POSITIVE_INFINITY ||
    quota.tokensPerMinute !== Number.POSITIVE_INFINITY
  );
}

/**
 * Every tenant's {@link TenantState}, created on first use. Idle tenants whose bucket is full again are
 * dropped once they outnumber both the active ones and {@link KEEP_IDLE}, so memory follows the active
 * tenants; a tenant that comes back starts with a full bucket, as it would have had anyway.
 */
export class TenantBooks {
  readonly #states = new Map<string, TenantState>();
  #config: Pick<StoreConfig, "clock" | "tenantDefaults" | "tenantQuotas"> | null = null;
  #idle = 0;
  #limited = false;

  /**
   * True when some tenant has a `maxConcurrency`, `maxQueue` or token bucket. When none has (the
   * default), no tenant can be refused, throttled or parked, and the store skips those checks.
   */
  get limited(): boolean {
    return this.#limited;
  }

  configure(config: Pick<StoreConfig, "clock" | "tenantDefaults" | "tenantQuotas">): void {
    this.#config = config;
    this.#limited = limits(config.tenantDefaults) || [...config.tenantQuotas.values()].some(limits);
    for (const state of this.#states.values()) {
      const before = state.quota;
      state.quota = this.quotaOf(state.name);
      if (before.burstTokens === Number.POSITIVE_INFINITY) state.level = state.quota.burstTokens;
      else state.level = Math.min(state.level, state.quota.burstTokens);
    }
  }

  quotaOf(name: string): ResolvedTenant {
    const config = this.#config;
    return config?.tenantQuotas.get(name) ?? config?.tenantDefaults ?? UNLIMITED_TENANT;
  }

  /** The state of `name`, created on first use; the caller queues or starts a ticket of it at once. */
  get(name: string, now: number): TenantState {
    let state = this.#states.get(name);
    if (state === undefined) {
      state = new TenantState(name, this.quotaOf(name), now);
      this.#states.set(name, state);
    } else if (state.idle) {
      this.#idle--;
    }
    return state;
  }

  /** The state of `name` if it is kept, without creating one. */
  peek(name: string): TenantState | undefined {
    return this.#states.get(name);
  }

  /** `state` may have gone idle: count it, and sweep when due (the only time it reads the clock). */
  settled(state: TenantState): void {
    if (!state.idle) return;
    this.#idle++;
    if (this.#idle > KEEP_IDLE && 2 * this.#idle > this.#states.size) this.#sweep(this.#config!.clock.now());
  }

  values(): IterableIterator<TenantState> {
    return this.#states.values();
  }

  #sweep(now: number): void {
    let idle = 0;
    for (const [name, state] of this.#states) {
      if (!state.idle) continue;
      if (state.refill(now) >= state.quota.burstTokens) this.#states.delete(name);
      else idle++;
    }
    this.#idle = idle;
  }
}
