/** A tenant held back after 429s: its own concurrency, and when it last moved. */
interface Hold {
  cap: number;
  /** The last cut: 429s of tasks started before it are not counted again. */
  cutAt: number;
  /** The last 429 or slot given back: the next slot comes a window later. */
  calmSince: number;
}

/** A success of one tenant, for "do others still succeed?". */
interface Success {
  tenant: string;
  at: number;
}

/** A held tenant with neither a 429 nor a success for this many windows is let go. */
const FORGET_WINDOWS = 60;

/**
 * Per-tenant back-off for 429s that come from one tenant's traffic. A 429 is that tenant's own (a
 * per-key rate limit) when another tenant's task succeeded since the refused task started (or within
 * the last window): then only this tenant's concurrency halves (from the limit in force, down to 1),
 * at most once per `cooldownMs` and never for a task started before its last cut. Each window in which
 * the tenant succeeds gives it one slot back; once its cap reaches the limit, the hold ends. A 429 while
 * no other tenant succeeds says the server is overloaded: the caller cuts the shared limit instead.
 *
 * @example
 * const backoff = new TenantBackoff();
 * backoff.succeeded("b", 900, 1_000, 8);
 * backoff.refused("a", 500, 1_000, { limit: 8, windowMs: 1_000, cooldownMs: 2_000 }); // "held"
 * backoff.caps(); // Map { "a" => 4 }
 */
export class TenantBackoff {
  readonly #holds = new Map<string, Hold>();
  /** The latest success, and the latest of another tenant than its one. */
  #latest: Success = { tenant: "", at: Number.NEGATIVE_INFINITY };
  #other: Success = { tenant: "", at: Number.NEGATIVE_INFINITY };
  #sweptAt = Number.NEGATIVE_INFINITY;

  /** The caps of the tenants held now (tenant key -> concurrency). */
  caps(): ReadonlyMap<string, number> {
    const caps = new Map<string, number>();
    for (const [tenant, hold] of this.#holds) caps.set(tenant, hold.cap);
    return caps;
  }

  /** True while some tenant is held. */
  get holding(): boolean {
    return this.#holds.size > 0;
  }

  /**
   * `tenant`'s task answered. Returns true when its cap changed (a slot given back, or the hold ended
   * at `limit`) or a forgotten hold was dropped.
   */
  succeeded(tenant: string, now: number, windowMs: number, limit: number): boolean {
    if (this.#latest.tenant === tenant) this.#latest.at = now;
    else {
      this.#other = this.#latest;
      this.#latest = { tenant, at: now };
    }
    const dropped = this.#forget(now, windowMs);
    const hold = this.#holds.get(tenant);
    if (hold === undefined || now - hold.calmSince < windowMs) return dropped;
    hold.cap++;
    hold.calmSince = now;
    if (hold.cap >= limit) this.#holds.delete(tenant);
    return true;
  }

  /**
   * `tenant`'s task, started at `startedAt`, got a 429 at `now`. `"held"`: it is this tenant's own (the
   * cap may have changed: read {@link caps}); `"server"`: no other tenant succeeds, the limit's business.
   */
  refused(
    tenant: string,
    startedAt: number,
    now: number,
    config: { readonly limit: number; readonly windowMs: number; readonly cooldownMs: number },
  ): "held" | "server" {
    const other = this.#latest.tenant === tenant ? this.#other : this.#latest;
    if (other.at < Math.min(startedAt, now - config.windowMs)) return "server";
    const hold = this.#holds.get(tenant);
    const halved = (from: number): number => Math.max(1, Math.floor(Math.min(from, config.limit) / 2));
    if (hold === undefined) {
      this.#holds.set(tenant, { cap: halved(config.limit), cutAt: now, calmSince: now });
      return "held";
    }
    if (startedAt >= hold.cutAt && now >= hold.cutAt + config.cooldownMs) {
      hold.cap = halved(hold.cap);
      hold.cutAt = now;
    }
    hold.calmSince = now;
    return "held";
  }

  /** Drops holds with no news for {@link FORGET_WINDOWS} windows; true when one was dropped. */
  #forget(now: number, windowMs: number): boolean {
    if (this.#holds.size === 0 || now - this.#sweptAt < windowMs) return false;
    this.#sweptAt = now;
    let dropped = false;
    for (const [tenant, hold] of this.#holds) {
      if (now - hold.calmSince >= FORGET_WINDOWS * windowMs) {
        this.#holds.delete(tenant);
        dropped = true;
      }
    }
    return dropped;
  }
}
