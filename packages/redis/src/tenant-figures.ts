import type { ResolvedTenant, StoreConfig } from "@llm-scheduler/core/kit";
import type { Connection } from "./connection.js";
import { tenantInRedis } from "./keys.js";

/** A tenant's token figures for `snapshot()`, as core's `StoreSnapshot` names them. */
export interface TenantFigures {
  readonly tokensServed?: number;
  readonly tokensInFlight?: number;
  readonly bucket?: number;
  readonly throttled?: number;
}

interface Books {
  readonly inflight: number;
  readonly level: number;
  readonly at: number;
  readonly served: number;
  readonly throttled: number;
}

const MS_PER_MINUTE = 60_000;

/** Reads one record of the `tn` hash (see quotas.lua); undefined for none or a shape it does not know. */
export function parseBooks(raw: string | null): Books | undefined {
  const parts = raw?.split(" ");
  if (parts?.length !== 10) return undefined;
  const [, , inflight, , level, at, served, throttled] = parts.map(Number) as number[];
  return {
    inflight: inflight!,
    level: parts[4] === "x" ? Number.POSITIVE_INFINITY : level!,
    at: at!,
    served: served!,
    throttled: throttled!,
  };
}

/**
 * The tenants' token figures (served, in flight, bucket, throttled) as Redis keeps them across every
 * instance, for `snapshot()`, which must answer at once: it answers from the last read, and starts a
 * new read (one HMGET of the tenants it was asked about) at most once per `everyMs`. A tenant without
 * books in Redis (no tenant quota is set, or it is idle with a full bucket) has no figures.
 *
 * @example
 * const figures = new TenantFiguresCache(client, "llm:");
 * figures.of("team-a", options); // { tokensServed: 18_200, tokensInFlight: 1_500, bucket: 8_000, throttled: 2 }
 */
export class TenantFiguresCache {
  readonly #client: Connection;
  readonly #key: string;
  readonly #everyMs: number;
  #books = new Map<string, Books>();
  #readAt = Number.NEGATIVE_INFINITY;
  #reading = false;

  constructor(client: Connection, prefix: string, everyMs = 1_000) {
    this.#client = client;
    this.#key = `${prefix}tn`;
    this.#everyMs = everyMs;
  }

  /** The figures of `tenant` from the last read; its bucket refilled to `now` (the store's clock). */
  of(tenant: string, options: StoreConfig, now: number): TenantFigures {
    const books = this.#books.get(tenant);
    if (books === undefined) return {};
    const quota: ResolvedTenant = options.tenantQuotas.get(tenant) ?? options.tenantDefaults;
    const figures = {
      tokensServed: books.served,
      tokensInFlight: books.inflight,
      throttled: books.throttled,
    };
    if (quota.tokensPerMinute === Number.POSITIVE_INFINITY) return figures;
    const earned = (Math.max(0, now - books.at) * quota.tokensPerMinute) / MS_PER_MINUTE;
    return { ...figures, bucket: Math.floor(Math.min(quota.burstTokens, books.level + earned)) };
  }

  /** Reads the books of `tenants` again if the last read is older than `everyMs` (errors: `onError`). */
  refresh(tenants: readonly string[], now: number, onError: (error: unknown) => void): void {
    if (this.#reading || tenants.length === 0 || now - this.#readAt < this.#everyMs) return;
    if (this.#client.status !== "ready") return;
    this.#reading = true;
    this.#readAt = now;
    const fields = tenants.map(tenantInRedis);
    this.#client.hmget(this.#key, ...fields).then(
      (records) => {
        const books = new Map<string, Books>();
        records.forEach((raw, i) => {
          const parsed = parseBooks(raw);
          if (parsed !== undefined) books.set(tenants[i]!, parsed);
        });
        this.#books = books;
        this.#reading = false;
      },
      (error: unknown) => {
        this.#reading = false;
        onError(error);
      },
    );
  }
}
