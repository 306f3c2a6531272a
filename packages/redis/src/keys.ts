import { createHash } from "node:crypto";

/**
 * The version of the key layout below, kept as `lv` in the state hash (written by every configure).
 * A store call that finds another version there fails with an error that says so, instead of reading
 * keys it does not understand. A new layout means a new version: instances of the old one must be
 * stopped before (or while) instances of the new one start; the two cannot share a prefix.
 * Version 2: the arrival order `age:<priority>` is kept only for priorities that age.
 * Version 3: each ticket's record is a key of its own (`tk:<id>`), no longer a field of one `tickets` hash,
 * and the configuration is one field of the state hash (`cf`), no longer a field per setting.
 * Version 4: a tenant's queue is a LIST (`q:...`, appended and popped in constant time), no longer a
 * ZSET scored by arrival number, and a ticket's record is binary (packed numbers), no longer text.
 * Version 5: a ticket's record is a hash of named fields again (readable with `HGETALL`), not packed.
 */
export const LAYOUT_VERSION = 5;

/**
 * Every Redis key and channel the store uses, with its type (four keys, three for tenant quotas, plus a
 * few per priority, tenant, instance and ticket). All start with the store's `prefix`.
 * The fixed keys travel as KEYS to every script; the per-priority, per-tenant, per-instance and per-ticket keys
 * are built inside the scripts from the prefix (ARGV[1]) exactly as below, so on Redis Cluster the prefix
 * carries a hash tag (`"{llm}:"`; one without is wrapped in one, see `keyPrefix`) to keep them all in
 * one slot.
 *
 * - `state` HASH, read once and written once per script: `lv` (the layout version, see
 *   {@link LAYOUT_VERSION}); `cf`, the configuration (the last `configure()` wins), one JSON object
 *   of string values, decoded once per change (see config_of in lua/lib/base.lua): `mq` (maxQueue,
 *   -1 = none), `pn` and `pn|1`.. (the priorities in configuration order), per priority `cw|<name>`
 *   (weight), `cr|<name>` (reserved), `cm|<name>` (maxConcurrency), `cq|<name>` (maxQueue),
 *   `ca|<name>` (maxWaitMs, -1 = no aging); tenant quotas (see lua/lib/quotas.lua): `bk` ("1" when some
 *   tenant quota is set), `td` (tenantDefaults), `tqn` (how many tenants have quotas of their own), `mt`
 *   (maxTokensInFlight, -1 = none), `fa` ("1" for fairness "tokens"), `ow` (outputTokenWeight), `twn`
 *   (how many tenants have a weight), `pe` and `pm` (while some priority preempts: priority -> the
 *   priorities it preempts, priority -> maxPerTask; see lua/lib/preempt.lua); `max` (maxConcurrency: configure's, except an adaptive limit that
 *   limit.lua set), `le` (how many times limit.lua changed `max`: the adaptive limit's epoch); the
 *   counters: `running`, `queued` (totals), `vt` (stride virtual time), `seq` (arrival counter), per
 *   priority `p|<name>` (stride pass), `q|<name>` (queued), `r|<name>` (running), `l|<name>` (time of
 *   its last start, for aging), `n|<name>` (starts so far), `c|<name>` (whose turn it is); `ep` (epoch:
 *   "<Redis ms>-<instance>", written when the state is created), `rec` (while grants are held after
 *   Redis lost its state: until this Redis time, in ms) and `rex` (how many instances must check in to
 *   end that early); `tf` (estimated tokens in flight), per priority `fl|<name>` (fairness "tokens": the
 *   last start's counter); `pv`, `pa`, `pp` (the preemption victim that has not let go yet: its ticket
 *   id, its arrival's id, the arrival's priority).
 * - `tw` HASH: tenant -> weight, for tenants with a configured weight; `twn` in `cf` counts them
 *   (while it is "0" no call reads `tw`).
 * - `tk:<ticket id>` HASH: the ticket's record while queued or leased: `c` (cost), `a` (arrival time),
 *   `l` (leaseMs), `k` (tokens), `b` ("1" when its tenant's books count it), `s` (its arrival number
 *   while it waits, else 0), `p` (priority), `t` (tenant) (see write_ticket in lua/lib/base.lua). One key
 *   per ticket, so that reading or writing a record costs the same however many tickets there are (a
 *   hash of them all is, below the server's `hash-max-listpack-entries`, a list that every command scans).
 * - `leases` ZSET: ticket id -> lease expiry (ms, Redis clock); a member holds a slot.
 * - `instances` ZSET: instance id -> heartbeat expiry (ms, Redis clock).
 * - `age:<priority>` ZSET: ticket id -> arrival number; the priority's tickets, oldest first, kept only
 *   while the priority ages (maxWaitMs set): built by the configure that turns aging on, dropped by
 *   the one that turns it off.
 * - `ring:<priority>` HASH: `n:<tenant>` / `p:<tenant>` ring links and `c:<tenant>` turn credit of the
 *   tenants with waiting tickets.
 * - `q:<bytes(priority)>:<priority>:<tenant>` LIST: one tenant's waiting ticket ids within one priority,
 *   first to start first: appended in arrival order, a retry pushed to the front.
 * - `tq` HASH: tenant -> "maxConcurrency maxQueue tokensPerMinute burstTokens" (-1 = none), for tenants
 *   with quotas of their own.
 * - `tn` HASH: tenant -> "running queued inflight pending level refilledAt served throttled capped
 *   burst", while some tenant quota is set and the tenant is active or its bucket refills.
 * - `ti` ZSET: tenant -> when its bucket is full again, for idle tenants still in `tn` (then dropped).
 * - `th:<priority>` ZSET (fairness "tokens"): waiting tenants not at their cap -> weighted tokens served.
 * - `tc:<priority>` ZSET (fairness "tokens"): the counters of tenants not waiting, while above `fl|`.
 * - `back` SET: ids of the instances that checked in during a recovery (see configure.lua).
 * - `owned:<instance>` SET: ids of the instance's queued tickets (purged if it dies).
 * - `po` LIST: arrivals of preempting priorities owed a victim while another victim winds down.
 * - `pr:<ticket id>` HASH, while some priority preempts, for a running or requeued ticket of a priority
 *   that may be preempted: `started` (Redis ms), `count` (preemptions so far), `spared` ("1": never a
 *   victim again in this run).
 * - `inbox:<instance>` LIST: ids granted to the instance by another instance's script, until drained.
 * - `grants:<instance>` pub/sub channel: comma-separated ids granted to the instance, or
 *   `!<ticket id> <priority>`: that running ticket is the victim of an arrival of that priority.
 *
 * A ticket id is `<instance>:<seq>`; `seq` is the scheduler's per-instance ticket number. A tenant
 * appears in keys and fields as its name, or, when longer than 256 characters, as a digest of it
 * (see {@link tenantInRedis}).
 */
export interface Keys {
  readonly state: string;
  readonly tenantWeights: string;
  readonly leases: string;
  readonly instances: string;
}

/**
 * The fixed keys under a prefix.
 *
 * @example
 * await redis.hgetall(fixedKeys("llm:").state); // { max: "32", running: "7", queued: "120", ... }
 */
export function fixedKeys(prefix: string): Keys {
  return {
    state: `${prefix}state`,
    tenantWeights: `${prefix}tw`,
    leases: `${prefix}leases`,
    instances: `${prefix}instances`,
  };
}

/**
 * The fixed keys in the order every script receives them as KEYS[1..4].
 *
 * @example
 * const keys = keyList(fixedKeys("llm:"));
 * await redis.evalsha(sha, keys.length, ...keys, "llm:", instanceId, "", ...args);
 */
export function keyList(keys: Keys): string[] {
  return [keys.state, keys.tenantWeights, keys.leases, keys.instances];
}

/**
 * The pub/sub channel on which one instance hears of its grants.
 *
 * @example
 * subscriber.subscribe(grantChannel("llm:", store.instanceId)); // "llm:grants:<instance>"
 */
export const grantChannel = (prefix: string, instance: string): string => `${prefix}grants:${instance}`;

/**
 * A ticket's id in Redis: unique across instances.
 *
 * @example
 * ticketId("a1b2", 42); // "a1b2:42"
 */
export const ticketId = (instance: string, seq: number): string => `${instance}:${seq}`;

/** Tenant names longer than this are stored as a digest. */
const LONGEST_TENANT = 256;

/**
 * How a tenant is named in Redis keys and fields: itself, or, when longer than 256 characters (a raw
 * token used as a tenant), `"\u0000sha256:"` and the base64url SHA-256 of it, so that keys stay small
 * whatever the input and no short name (none starts with a NUL) can collide with a digest.
 *
 * @example
 * tenantInRedis("team-a"); // "team-a"
 * tenantInRedis("x".repeat(1_000)); // "\u0000sha256:…" (52 characters)
 */
export function tenantInRedis(tenant: string): string {
  if (tenant.length <= LONGEST_TENANT) return tenant;
  return `\u0000sha256:${createHash("sha256").update(tenant).digest("base64url")}`;
}
