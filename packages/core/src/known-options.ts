import type { TaskOptions } from "./admission.js";

/** The `TaskOptions` keys a {@link KnownTaskOptions} holds. */
type KnownKey = "priority" | "tenant" | "id" | "cost" | "tokens" | "timeoutMs" | "claimedRetry" | "signal";

/** What a {@link KnownTaskOptions} is made from, by name; each field is the `TaskOptions` field of that name. */
export type KnownTaskFields = { readonly [K in KnownKey]?: TaskOptions[K] | undefined };

/**
 * Per-call options built by an adapter for one request: every key is a `TaskOptions` key by
 * construction, so admission skips the unknown-key check for them (it still checks every value). An
 * adapter grants a permit on every request, and this check was a fixed share of it. Options of any
 * other shape (a plain object, a spread copy of one of these) are checked key by key as before.
 * Fields are `declare`d and assigned in the constructor (no class-field initializers), as in `Task`.
 *
 * @example
 * const options = new KnownTaskOptions({ priority: "interactive", tenant, id });
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

  /** Takes the named fields of `fields` (any other key it has is not copied); `claimedRetry` defaults to false. */
  constructor(fields: KnownTaskFields) {
    this.priority = fields.priority;
    this.tenant = fields.tenant;
    this.id = fields.id;
    this.cost = fields.cost;
    this.tokens = fields.tokens;
    this.timeoutMs = fields.timeoutMs;
    this.claimedRetry = fields.claimedRetry ?? false;
    this.signal = fields.signal;
  }

  /** The same options with the caller's signal (for a request that has to wait in the queue). */
  withSignal(signal: AbortSignal): KnownTaskOptions {
    return new KnownTaskOptions({ ...this, signal });
  }
}

/**
 * True when `options` was made by {@link KnownTaskOptions}: one prototype read on the common path. Its
 * instances are not sealed (`Object.preventExtensions` on each one costs more than the key check it
 * would protect), so a key added to one after construction goes unchecked: only adapters make them.
 * See docs/decisions/0035-known-task-options-by-name.md.
 */
export function isKnownShape(options: object): boolean {
  return Object.getPrototypeOf(options) === KnownTaskOptions.prototype;
}
