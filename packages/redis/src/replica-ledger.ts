import { createHash, randomUUID } from "node:crypto";
import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { readLua } from "./lua-source.js";
import type { RedisClient } from "./options.js";

/** Options of {@link redisReplicaLedger}. */
export interface ReplicaLedgerOptions {
  /** Start of every key. @default "llm-scheduler" */
  readonly prefix?: string;
  /** The pool's name: its keys share the hash tag `{<pool>}`, so one Cluster slot. @default "pool" */
  readonly pool?: string;
  /** A lease not renewed for this long expires (its instance died); renewed every third of it. @default 10000 */
  readonly leaseMs?: number;
}

/** The shape of `@llm-scheduler/pool`'s `ReplicaLedger`, with `close()` to stop the heartbeat. */
export interface RedisReplicaLedger {
  take(replicaId: string, limit: number): Promise<string | null>;
  release(leaseId: string): Promise<void>;
  renew(): Promise<void>;
  counts(replicaIds: readonly string[]): Promise<Record<string, number>>;
  eject(replicaId: string, ms: number): Promise<void>;
  ejections(): Promise<Record<string, number>>;
  /** Stops the heartbeat; leases still held expire after `leaseMs`. Does not close the client. */
  close(): void;
}

interface Script {
  readonly source: string;
  readonly sha: string;
}

type ScriptName = "take" | "renew" | "counts" | "eject" | "ejections";

const SCRIPTS = new Map<ScriptName, Script>(
  (["take", "renew", "counts", "eject", "ejections"] as const).map((name) => {
    const source = readLua(`replicas/${name}.lua`);
    return [name, { source, sha: createHash("sha1").update(source).digest("hex") }];
  }),
);

const NAME = /^[^{}\s]{1,200}$/;

function nameAt(field: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || !NAME.test(value)) {
    throw invalidOption(field, "1 to 200 characters without braces or spaces", value);
  }
  return value;
}

/**
 * Per-replica slots and ejections of one pool, shared through Redis by every gateway instance: a Lua
 * script takes a lease on a replica only while its live leases are fewer than its limit; each lease
 * expires `leaseMs` after its last renewal (a heartbeat renews this instance's leases every third of
 * it), so a dead instance's leases free themselves. Ejections are a hash of replica id -> end time
 * (Redis time), read by every instance. All keys carry the hash tag `{<pool>}`.
 *
 * @example
 * const redis = new Redis(process.env.REDIS_URL);
 * const ledger = redisReplicaLedger(redis, { pool: "llama-70b" });
 * const pool = createPool({ replicas, shared: { ledger } });
 */
export function redisReplicaLedger(
  redis: RedisClient,
  options: ReplicaLedgerOptions = {},
): RedisReplicaLedger {
  if (typeof options !== "object" || options === null) throw invalidOption("options", "an object", options);
  rejectUnknownKeys("", options, ["prefix", "pool", "leaseMs"]);
  const prefix = nameAt("prefix", options.prefix, "llm-scheduler");
  const pool = nameAt("pool", options.pool, "pool");
  const leaseMs = integerIn("leaseMs", options.leaseMs, 100, 3_600_000, 10_000);
  const base = `${prefix}:{${pool}}:`;
  const leaseKey = (replicaId: string): string => `${base}lease:${replicaId}`;
  const ejectedKey = `${base}ejected`;
  const instance = randomUUID();
  const held = new Map<string, string>();
  let next = 0;

  const run = async (name: ScriptName, keys: readonly string[], args: readonly (string | number)[]) => {
    const script = SCRIPTS.get(name)!;
    try {
      return (await redis.evalsha(script.sha, keys.length, ...keys, ...args)) as unknown;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return (await redis.eval(script.source, keys.length, ...keys, ...args)) as unknown;
    }
  };

  const renew = async (): Promise<void> => {
    if (held.size === 0) return;
    const leases = [...held];
    await run(
      "renew",
      leases.map(([, replicaId]) => leaseKey(replicaId)),
      [leaseMs, ...leases.map(([id]) => id)],
    );
  };
  const timer = setInterval(() => void renew().catch(() => undefined), Math.max(1, Math.floor(leaseMs / 3)));
  timer.unref();

  return {
    async take(replicaId, limit) {
      const id = `${instance}:${next++}`;
      const taken = await run("take", [leaseKey(replicaId)], [id, limit, leaseMs]);
      if (taken !== 1) return null;
      held.set(id, replicaId);
      return id;
    },
    async release(leaseId) {
      const replicaId = held.get(leaseId);
      if (replicaId === undefined) return;
      held.delete(leaseId);
      await redis.zrem(leaseKey(replicaId), leaseId);
    },
    renew,
    async counts(replicaIds) {
      if (replicaIds.length === 0) return {};
      const counts = (await run("counts", replicaIds.map(leaseKey), [])) as number[];
      return Object.fromEntries(replicaIds.map((id, i) => [id, counts[i] ?? 0]));
    },
    async eject(replicaId, ms) {
      await run("eject", [ejectedKey], [replicaId, Math.max(1, Math.round(ms))]);
    },
    async ejections() {
      const flat = (await run("ejections", [ejectedKey], [])) as (string | number)[];
      const left: Record<string, number> = {};
      for (let i = 0; i < flat.length; i += 2) left[String(flat[i])] = Number(flat[i + 1]);
      return left;
    },
    close() {
      clearInterval(timer);
    },
  };
}
