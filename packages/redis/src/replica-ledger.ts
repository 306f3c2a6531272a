import { randomUUID } from "node:crypto";
import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { type Connection, openSubscriber } from "./connection.js";
import type { RedisClient } from "./options.js";
import {
  type CountsSnapshot,
  type LedgerScript,
  runLedgerScript,
  snapshotOf,
  snapshotOfMessage,
} from "./replica-ledger-scripts.js";

/** Options of {@link redisReplicaLedger}. */
export interface ReplicaLedgerOptions {
  /** Start of every key. @default "llm-scheduler" */
  readonly prefix?: string;
  /** The pool's name: its keys share the hash tag `{<pool>}`, so one Cluster slot. @default "pool" */
  readonly pool?: string;
  /** A lease not renewed for this long expires (its instance died); renewed every third of it. @default 10000 */
  readonly leaseMs?: number;
}

/** What a watcher of the ledger gets: fleet-wide counts, or `undefined` when Redis was lost. */
type CountsListener = (snapshot: CountsSnapshot | undefined) => void;

/** The shape of `@llm-scheduler/pool`'s `ReplicaLedger`, with `close()` to stop the heartbeat. */
export interface RedisReplicaLedger {
  take(replicaId: string, limit: number): Promise<string | null>;
  release(leaseId: string): Promise<void>;
  renew(): Promise<void>;
  counts(replicaIds: readonly string[]): Promise<Record<string, number>>;
  eject(replicaId: string, ms: number): Promise<void>;
  ejections(): Promise<Record<string, number>>;
  watch(replicaIds: readonly string[], listener: CountsListener): () => void;
  /** Stops the heartbeat and the subscription; leases still held expire after `leaseMs`. Does not close the client. */
  close(): void;
}

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
 * it, and puts back those Redis lost), so a dead instance's leases free themselves. Every take,
 * release and heartbeat returns the live leases of the watched replicas; a granted take and a release
 * also publish them on the pool's channel, which every instance's subscription (a `duplicate()` of
 * `redis`, opened by the first `watch`) hands to its watchers. Ejections are a hash of replica id ->
 * end time (Redis time), read by every instance. All keys carry the hash tag `{<pool>}`.
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
  const seqKey = `${base}seq`;
  const channel = `${base}counts`;
  const instance = randomUUID();
  /** This instance's live leases: lease id -> replica id. */
  const held = new Map<string, string>();
  /** Leases whose release did not reach Redis: given back again by the next heartbeat. */
  const unreleased = new Map<string, string>();
  const watchers = new Map<CountsListener, readonly string[]>();
  let subscriber: Connection | undefined;
  let next = 0;

  /** The replicas whose counts a script returns: the watched ones, and the one it changes. */
  const watched = (replicaId?: string): string[] => [
    ...new Set([...(replicaId === undefined ? [] : [replicaId]), ...[...watchers.values()].flat()]),
  ];
  const tell = (snapshot: CountsSnapshot | undefined): void => {
    for (const listener of watchers.keys()) {
      try {
        listener(snapshot);
      } catch {
        // a watcher that throws must not stop the others
      }
    }
  };
  /** Runs a script; a failure tells the watchers that their counts are not to be trusted now. */
  const run = async (
    name: LedgerScript,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> => {
    try {
      return await runLedgerScript(redis, name, keys, args);
    } catch (error) {
      tell(undefined);
      throw error;
    }
  };

  const giveBack = async (leaseId: string, replicaId: string): Promise<void> => {
    const ids = watched(replicaId);
    let reply: unknown[];
    try {
      reply = (await run(
        "release",
        [leaseKey(replicaId), seqKey, ...ids.map(leaseKey)],
        [leaseId, channel, ...ids],
      )) as unknown[];
    } catch (error) {
      unreleased.set(leaseId, replicaId);
      throw error;
    }
    unreleased.delete(leaseId);
    tell(snapshotOf(reply, 0, ids));
  };

  const renew = async (): Promise<void> => {
    for (const [leaseId, replicaId] of [...unreleased]) await giveBack(leaseId, replicaId);
    const ids = watched();
    const leases = [...held];
    if (leases.length === 0 && ids.length === 0) return;
    const reply = (await run(
      "renew",
      [seqKey, ...leases.map(([, replicaId]) => leaseKey(replicaId)), ...ids.map(leaseKey)],
      [leaseMs, leases.length, ...leases.map(([id]) => id)],
    )) as unknown[];
    tell(snapshotOf(reply, 0, ids));
  };
  const timer = setInterval(() => void renew().catch(() => undefined), Math.max(1, Math.floor(leaseMs / 3)));
  timer.unref();

  const subscribe = (): void => {
    if (subscriber !== undefined) return;
    const opened = openSubscriber(redis as unknown as Connection, channel, {
      message: (text) => {
        const snapshot = snapshotOfMessage(text);
        if (snapshot !== undefined) tell(snapshot);
      },
      // (Re)subscribed: messages sent meanwhile are lost, and Redis may have restarted empty. The
      // heartbeat puts this instance's leases back and reads the counts at once.
      ready: () => void renew().catch(() => undefined),
      error: () => tell(undefined),
    });
    subscriber = opened.subscriber;
    subscriber.on("close", () => tell(undefined));
  };

  return {
    async take(replicaId, limit) {
      const id = `${instance}:${next++}`;
      const ids = watched(replicaId);
      const reply = (await run(
        "take",
        [leaseKey(replicaId), seqKey, ...ids.map(leaseKey)],
        [id, limit, leaseMs, channel, ...ids],
      )) as unknown[];
      const granted = Number(reply[0]) === 1;
      if (granted) held.set(id, replicaId);
      tell(snapshotOf(reply, 1, ids));
      return granted ? id : null;
    },
    async release(leaseId) {
      const replicaId = held.get(leaseId);
      if (replicaId === undefined) return;
      held.delete(leaseId);
      await giveBack(leaseId, replicaId);
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
    watch(replicaIds, listener) {
      watchers.set(listener, [...replicaIds]);
      subscribe();
      return () => {
        watchers.delete(listener);
      };
    },
    close() {
      clearInterval(timer);
      watchers.clear();
      subscriber?.removeAllListeners("message");
      subscriber?.disconnect();
      subscriber = undefined;
    },
  };
}
