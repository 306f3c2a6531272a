import type { ResolvedOptions } from "./options.js";
import type { Reporter } from "./reporter.js";
import { isPromise, type MaybePromise, type ResolvedTenant, type Store, type StoreConfig } from "./store.js";

/**
 * Values that the scheduler's automatic controls set while it runs, over the configured options: the
 * adaptive limit and the tenants' back-off after their own 429s. Each control writes its own field;
 * every store configuration is built from both by {@link storeConfigOf}, so `update()` never undoes them.
 */
export interface LiveSettings {
  /** The adaptive limit in force (see `LimitController`). */
  readonly maxConcurrency?: number;
  /** Tenants held back after 429s of their own, with their concurrency (see `TenantBackoff`). */
  readonly tenantCaps?: ReadonlyMap<string, number>;
}

/** The tenants' quotas with each held tenant's `maxConcurrency` lowered to its cap. */
function heldQuotas(config: StoreConfig, caps: ReadonlyMap<string, number>): Map<string, ResolvedTenant> {
  const quotas = new Map(config.tenantQuotas);
  for (const [tenant, cap] of caps) {
    const quota = quotas.get(tenant) ?? config.tenantDefaults;
    if (cap < quota.maxConcurrency) quotas.set(tenant, { ...quota, maxConcurrency: cap });
  }
  return quotas;
}

/** What the store works from: the part of the options it needs (so it never sees the rest), as a new object, with the live settings over them. */
function storeConfigOf(options: ResolvedOptions, live: LiveSettings): StoreConfig {
  const { tenantQuotas, preemption, adaptive } = options;
  const caps = live.tenantCaps;
  return {
    clock: options.clock,
    maxConcurrency: live.maxConcurrency ?? options.maxConcurrency,
    maxQueue: options.maxQueue,
    priorities: options.priorities,
    tenantWeights: options.tenantWeights,
    maxTokensInFlight: options.maxTokensInFlight,
    fairness: options.fairness,
    outputTokenWeight: options.outputTokenWeight,
    tenantDefaults: options.tenantDefaults,
    tenantQuotas: caps === undefined || caps.size === 0 ? tenantQuotas : heldQuotas(options, caps),
    ...(preemption === null ? {} : { preemption }),
    ...(adaptive === null ? {} : { adaptiveLimit: true as const }),
  };
}

/**
 * The options in force and what the automatic controls set over them (the adaptive limit, tenant
 * holds), kept in step with the store: every change reaches the store as one `configure`, and a store
 * that fails to take it is reported (`error` event), never thrown.
 *
 * @example
 * const configuration = new StoreConfiguration(options, store, reporter);
 * store.attach(host, configuration.forStore());
 * void configuration.setLive({ maxConcurrency: 12 });
 */
export class StoreConfiguration {
  #options: ResolvedOptions;
  /** What the automatic controls set over the options (see `storeConfigOf`). */
  #settings: LiveSettings = {};
  /** Inside `configureOnce`: `configure` and `setLive` only take their values. */
  #deferring = false;
  readonly #store: Store;
  readonly #reporter: Reporter;

  constructor(options: ResolvedOptions, store: Store, reporter: Reporter) {
    this.#options = options;
    this.#store = store;
    this.#reporter = reporter;
  }

  get options(): ResolvedOptions {
    return this.#options;
  }

  /** The options with the live settings over them, as the store takes them. */
  forStore() {
    return storeConfigOf(this.#options, this.#settings);
  }

  /**
   * New effective options (the wait targets moved a share; `update()` goes through `configureOnce`):
   * the store re-evaluates what waits. Resolves once the store has them; never rejects: a store that
   * fails to take them is reported (`error` event) while the options are in force here all the same (a
   * shared store writes them again when it reconnects).
   */
  configure(options: ResolvedOptions): Promise<void> {
    this.#options = options;
    return this.#deferring ? Promise.resolve() : this.#configureStore();
  }

  /**
   * Takes `options`, runs `change` (the other parts following them), in which `configure` and
   * `setLive` only take their values, then gives the store where they left them in one `configure`:
   * one update, one store configuration, never one halfway (say, new priority caps under the limit
   * from before). Resolves and fails as `configure` does.
   */
  configureOnce(options: ResolvedOptions, change: () => void): Promise<void> {
    this.#options = options;
    this.#deferring = true;
    try {
      change();
    } finally {
      this.#deferring = false;
    }
    return this.#configureStore();
  }

  /**
   * A value an automatic control set (the adaptive limit), with the effective options that go with it
   * when they changed too (the wait targets' reserves, bounded by the new limit): the store is
   * configured with both at once, in one call, a store failure is reported. `undefined` fields fall
   * back to the options.
   */
  setLive(settings: LiveSettings, options: ResolvedOptions = this.#options): void {
    const before = this.#settings.maxConcurrency ?? this.#options.maxConcurrency;
    const sameOptions = options === this.#options;
    this.#options = options;
    this.#settings = { ...this.#settings, ...settings };
    if (this.#deferring) return;
    const sameLimit = (this.#settings.maxConcurrency ?? this.#options.maxConcurrency) === before;
    if (sameOptions && sameLimit && settings.tenantCaps === undefined) return;
    void this.#configureStore();
  }

  /** The store gets the options with the live settings over them; a failure is an `error` event. */
  #configureStore(): Promise<void> {
    let result: MaybePromise<void>;
    try {
      result = this.#store.configure(this.forStore());
    } catch (error) {
      this.#reporter.error(error);
      return Promise.resolve();
    }
    if (!isPromise(result)) return Promise.resolve();
    return result.then(undefined, (error: unknown) => this.#reporter.error(error));
  }
}
