/** One recent rejection of a tenant, in arrival order (so also in expiry order). */
interface Credit {
  readonly tenant: string;
  readonly expiresAt: number;
}

/** A tenant's live credits and how many of them a claimed retry has used. */
interface Count {
  live: number;
  used: number;
}

/**
 * Recent rejections per tenant, each good for one front-of-queue entry of a claimed retry (a client that
 * says it is retrying, which anyone can say). A credit lasts `windowMs`; at most `capacity` are kept
 * (oldest dropped first), so memory stays bounded whatever the traffic. O(1) amortized per operation.
 *
 * @example
 * const credits = new TenantCredits(60_000, 10_000);
 * credits.add("alice", now); // alice was just refused
 * credits.take("alice", now); // true once: her claimed retry may go to the front
 */
export class TenantCredits {
  #credits: Credit[] = [];
  #head = 0;
  readonly #counts = new Map<string, Count>();
  readonly #windowMs: number;
  readonly #capacity: number;

  constructor(windowMs: number, capacity: number) {
    this.#windowMs = windowMs;
    this.#capacity = capacity;
  }

  /** Live credits over all tenants. */
  get size(): number {
    return this.#credits.length - this.#head;
  }

  /** `tenant` was refused (queue full or timed out) at `now`. */
  add(tenant: string, now: number): void {
    if (this.#capacity === 0) return;
    this.#expire(now);
    if (this.size >= this.#capacity) this.#dropOldest();
    this.#credits.push({ tenant, expiresAt: now + this.#windowMs });
    const count = this.#counts.get(tenant);
    if (count === undefined) this.#counts.set(tenant, { live: 1, used: 0 });
    else count.live++;
  }

  /** True (and one credit used) when `tenant` has a recent rejection no claimed retry has used yet. */
  take(tenant: string, now: number): boolean {
    this.#expire(now);
    const count = this.#counts.get(tenant);
    if (count === undefined || count.used >= count.live) return false;
    count.used++;
    return true;
  }

  #expire(now: number): void {
    while (this.#head < this.#credits.length && this.#credits[this.#head]!.expiresAt < now)
      this.#dropOldest();
  }

  /** Drops the oldest credit; a used one goes first (all of a tenant's credits are alike). */
  #dropOldest(): void {
    const { tenant } = this.#credits[this.#head]!;
    this.#head++;
    if (this.#head > 1_024 && this.#head * 2 > this.#credits.length) {
      this.#credits = this.#credits.slice(this.#head);
      this.#head = 0;
    }
    const count = this.#counts.get(tenant)!;
    count.live--;
    if (count.used > 0) count.used--;
    if (count.live === 0) this.#counts.delete(tenant);
  }
}
