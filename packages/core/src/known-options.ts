import type { TaskOptions } from "./admission.js";

/**
 * Per-call options built by an adapter for one request: every key is a `TaskOptions` key by
 * construction, so admission skips the unknown-key check for them (it still checks every value). An
 * adapter grants a permit on every request, and this check was a fixed share of it. Options of any
 * other shape (a plain object, a spread copy of one of these) are checked key by key as before.
 * Fields are `declare`d and assigned in the constructor (no class-field initializers), as in `Task`.
 *
 * @example
 * const options = new KnownTaskOptions("interactive", tenant, id, undefined, undefined, undefined, false);
 * const permit = scheduler.tryAcquire(options);
 */
export class KnownTaskOptions implements TaskOptions {
  declare readonly priority: string | undefined;
  declare readonly tenant: string | undefined;
  declare readonly id: string | undefined;
  declare readonly cost: number | undefined;
  declare readonly tokens: number | undefined;
  declare readonly timeoutMs: number | undefined;
  declare readonly claimedRetry: boolean;
  declare readonly signal: AbortSignal | undefined;

  constructor(
    priority: string | undefined,
    tenant: string | undefined,
    id: string | undefined,
    cost: number | undefined,
    tokens: number | undefined,
    timeoutMs: number | undefined,
    claimedRetry: boolean,
    signal?: AbortSignal,
  ) {
    this.priority = priority;
    this.tenant = tenant;
    this.id = id;
    this.cost = cost;
    this.tokens = tokens;
    this.timeoutMs = timeoutMs;
    this.claimedRetry = claimedRetry;
    this.signal = signal;
  }

  /** The same options with the caller's signal (for a request that has to wait in the queue). */
  withSignal(signal: AbortSignal): KnownTaskOptions {
    const { priority, tenant, id, cost, tokens, timeoutMs, claimedRetry } = this;
    return new KnownTaskOptions(priority, tenant, id, cost, tokens, timeoutMs, claimedRetry, signal);
  }
}

/**
 * True when `options` was made by {@link KnownTaskOptions}: one prototype read on the common path. Its
 * instances are not sealed (`Object.preventExtensions` on each one costs more than the key check it
 * would protect), so a key added to one after construction goes unchecked: only adapters make them.
 * See docs/decisions/0007-known-task-options.md.
 */
export function isKnownShape(options: object): boolean {
  return Object.getPrototypeOf(options) === KnownTaskOptions.prototype;
}
