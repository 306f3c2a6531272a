/** The engine's own signals of one replica, as a pool scrapes them. */
export interface EngineSignalsLike {
  readonly waiting: number;
  readonly running: number;
  readonly kvCacheUsage?: number | undefined;
}

/**
 * One replica as the dashboard reads it: the shape of a row of `@llm-scheduler/pool`'s
 * `pool.metrics().replicas`. Fields other than these are ignored, and never shown.
 */
export interface ReplicaLike {
  readonly id: string;
  /** Shown without its credentials: user, password, query and fragment are cut off. */
  readonly url?: string | undefined;
  readonly limit: number;
  readonly inFlight: number;
  readonly healthy: boolean;
  /** Ejected, with its half-open probe due or under way. */
  readonly halfOpen?: boolean | undefined;
  readonly engine?: EngineSignalsLike | undefined;
  readonly sent?: number | undefined;
  readonly failedBeforeFirstByte?: number | undefined;
  readonly consecutiveFailures?: number | undefined;
  readonly ejections?: number | undefined;
}

/**
 * The part of a pool of replicas the dashboard reads: `metrics()` with its `replicas` (a `Pool` of
 * `@llm-scheduler/pool` will do), read once per snapshot, synchronously.
 *
 * @example
 * createDashboard({ scheduler: pool.scheduler, replicas: pool, access: "aggregate" });
 */
export interface ReplicasLike {
  metrics(): { readonly replicas: readonly ReplicaLike[]; readonly waitingForReplica?: number };
}

/** A replica's health as the page shows it. */
export type ReplicaHealthView = "healthy" | "ejected" | "half-open";

/** One replica as the snapshot carries it. */
export interface ReplicaView {
  readonly id: string;
  /** Scheme, host and path only; `null` in the aggregate view, or when the URL does not parse. */
  readonly url: string | null;
  readonly health: ReplicaHealthView;
  readonly limit: number;
  readonly inFlight: number;
  /** `null` when the engine was not scraped (or its signals went stale). */
  readonly engine: {
    readonly waiting: number;
    readonly running: number;
    /** 0..1, or `null` when the engine does not say. */
    readonly kvCacheUsage: number | null;
  } | null;
  readonly sent: number;
  readonly failedBeforeFirstByte: number;
  readonly consecutiveFailures: number;
  readonly ejections: number;
}

/** The pool as the snapshot carries it: capacity, healthy capacity and its replicas. */
export interface PoolView {
  /** The sum of every replica's limit, ejected ones included. */
  readonly capacity: number;
  /** The sum of the healthy replicas' limits: what the pool can run now (before a scheduler cap). */
  readonly healthyCapacity: number;
  readonly healthyReplicas: number;
  /** Requests holding a pool slot while they wait for a replica with room. */
  readonly waitingForReplica: number;
  /** How many replicas the pool has; `replicas` holds the first 64. */
  readonly total: number;
  readonly replicas: readonly ReplicaView[];
}

/** Replicas kept per snapshot (each history sample holds them too); the capacities count them all. */
const SHOWN_REPLICAS = 64;

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

function text(value: unknown, max: number): string {
  const shown = typeof value === "string" ? value : String(value ?? "");
  return shown.length > max ? `${shown.slice(0, max)}…` : shown;
}

/**
 * A replica's URL without what may carry a credential: user and password, query and fragment are
 * dropped; `null` for anything that does not parse as an http(s) URL (it is then never shown raw).
 *
 * @example
 * shownUrl("http://user:secret@10.0.0.1:8000/v1?api_key=k"); // "http://10.0.0.1:8000/v1"
 */
export function shownUrl(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 2_000) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const path = url.pathname === "/" ? "" : url.pathname;
  return text(`${url.protocol}//${url.host}${path}`, 200);
}

function engineView(engine: unknown): ReplicaView["engine"] {
  if (typeof engine !== "object" || engine === null) return null;
  const signals = engine as Partial<EngineSignalsLike>;
  const usage = signals.kvCacheUsage;
  return {
    waiting: count(signals.waiting),
    running: count(signals.running),
    kvCacheUsage: typeof usage === "number" && usage >= 0 && usage <= 1 ? usage : null,
  };
}

/**
 * Keeps only the counts, health and a credential-free URL of a replica.
 *
 * @example
 * replicaView({ id: "r0", url: "http://10.0.0.1:8000", limit: 8, inFlight: 3, healthy: true });
 */
export function replicaView(row: ReplicaLike): ReplicaView {
  const health: ReplicaHealthView =
    row.healthy !== false ? "healthy" : row.halfOpen === true ? "half-open" : "ejected";
  return {
    id: text(row.id, 200),
    url: shownUrl(row.url),
    health,
    limit: count(row.limit),
    inFlight: count(row.inFlight),
    engine: engineView(row.engine),
    sent: count(row.sent),
    failedBeforeFirstByte: count(row.failedBeforeFirstByte),
    consecutiveFailures: count(row.consecutiveFailures),
    ejections: count(row.ejections),
  };
}

/**
 * Reads the pool once: its capacities over every replica, and the first 64 replicas as views. A
 * source whose `metrics()` throws, or answers without a `replicas` array, gives `null`.
 *
 * @example
 * const view = readPool(pool); // { capacity: 16, healthyCapacity: 8, replicas: [...] }
 */
export function readPool(source: ReplicasLike): PoolView | null {
  let metrics: ReturnType<ReplicasLike["metrics"]>;
  try {
    metrics = source.metrics();
  } catch {
    return null;
  }
  const rows = (metrics as { replicas?: unknown } | null)?.replicas;
  if (!Array.isArray(rows)) return null;
  const views = rows.flatMap((row: unknown) =>
    typeof row === "object" && row !== null ? [replicaView(row as ReplicaLike)] : [],
  );
  let capacity = 0;
  let healthyCapacity = 0;
  let healthyReplicas = 0;
  for (const view of views) {
    capacity += view.limit;
    if (view.health !== "healthy") continue;
    healthyCapacity += view.limit;
    healthyReplicas += 1;
  }
  return {
    capacity,
    healthyCapacity,
    healthyReplicas,
    waitingForReplica: count(metrics.waitingForReplica),
    total: views.length,
    replicas: views.slice(0, SHOWN_REPLICAS),
  };
}

/**
 * The pool as one viewer may see it: in the aggregate view, the replicas keep their ids, health and
 * counts, and lose their URLs (they say where the infrastructure is).
 *
 * @example
 * presentPool(readPool(pool), "aggregate")?.replicas[0]?.url; // null
 */
export function presentPool(pool: PoolView | null, view: "full" | "aggregate"): PoolView | null {
  if (pool === null || view === "full") return pool;
  return { ...pool, replicas: pool.replicas.map((replica) => ({ ...replica, url: null })) };
}
