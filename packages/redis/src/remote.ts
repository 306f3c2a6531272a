import type { Clock } from "@llm-scheduler/core";
import type { LimitProposal, ResolvedTenant, StoreConfig, Ticket, TokenUsage } from "@llm-scheduler/core/kit";
import { type BatchArgs, Batcher, type BatchKind } from "./batcher.js";
import { type Connection, within } from "./connection.js";
import { fixedKeys, keyList, tenantInRedis, ticketId } from "./keys.js";
import type { ResolvedRedisOptions } from "./options.js";
import { parseReply, type Reply } from "./replies.js";
import { type ScriptName, Scripts } from "./scripts.js";

const finite = (value: number): number => (value === Number.POSITIVE_INFINITY ? -1 : value);

/** At most this many ticket ids go in one removal. */
export const REMOVE_CHUNK = 1_000;

/** A tenant's quota as the scripts read it (see quotas.lua): "maxConcurrency maxQueue tpm burst". */
function quotaOf(tenant: ResolvedTenant): string {
  const { maxConcurrency, maxQueue, tokensPerMinute, burstTokens } = tenant;
  return [maxConcurrency, maxQueue, tokensPerMinute, burstTokens].map(finite).join(" ");
}

const limited = (tenant: ResolvedTenant): boolean =>
  tenant.maxConcurrency !== Number.POSITIVE_INFINITY ||
  tenant.maxQueue !== Number.POSITIVE_INFINITY ||
  tenant.tokensPerMinute !== Number.POSITIVE_INFINITY;

/** The limits, priorities and tenant quotas as the configure script takes them; -1 stands for Infinity. */
function configJson(options: StoreConfig): string {
  const quotas = [...options.tenantQuotas];
  const books = limited(options.tenantDefaults) || quotas.some(([, tenant]) => limited(tenant));
  return JSON.stringify({
    bk: books ? "1" : "0",
    td: quotaOf(options.tenantDefaults),
    mt: finite(options.maxTokensInFlight),
    fa: options.fairness === "tokens" ? "1" : "0",
    ow: options.outputTokenWeight,
    tq: Object.fromEntries(quotas.map(([name, tenant]) => [tenantInRedis(name), quotaOf(tenant)])),
    max: options.maxConcurrency,
    mq: finite(options.maxQueue),
    p: options.priorities.map((p) => ({
      n: p.name,
      w: p.weight,
      r: p.reserved,
      m: p.maxConcurrency,
      q: finite(p.maxQueue),
      a: finite(p.maxWaitMs),
    })),
    ...(options.adaptiveLimit === true ? { ad: 1 } : {}),
    ...preemptionJson(options),
  });
}

/** Who may preempt whom (see preempt.lua), only while some priority preempts. */
function preemptionJson({ preemption }: StoreConfig): object {
  if (preemption === undefined || preemption === null) return {};
  return {
    pe: Object.fromEntries([...preemption.preempts].map(([name, targets]) => [name, [...targets]])),
    pm: Object.fromEntries(preemption.maxPerTask),
  };
}

/**
 * This instance's side of the conversation with Redis: one method per script, building its arguments
 * and reading its reply. Enqueues, releases and removals made in the same turn of the event loop share
 * one script call, `step` (see {@link Batcher}); their reply's counts and grants go to `absorb` once. Calls fail
 * at once (rather than wait in a queue) while the connection is not ready, so that the store can fall
 * back or fail closed.
 */
export class Remote {
  readonly #client: Connection;
  readonly #scripts: Scripts;
  readonly #keys: string[];
  readonly #config: ResolvedRedisOptions;
  readonly #idPrefix: string;
  readonly #batcher: Batcher;
  clock: Clock | null = null;
  /** The epoch of the state in Redis as this instance last saw it ("" before the first configure). */
  #epoch = "";
  /** How many instances were live at the last configure or heartbeat (0 before the first). */
  #live = 0;
  /** The last configure found Redis had lost the state this instance knew: its adopt checks in. */
  #checkIn = false;

  constructor(client: Connection, config: ResolvedRedisOptions, absorb: (reply: Reply) => void) {
    this.#client = client;
    this.#config = config;
    this.#batcher = new Batcher((args) => this.#runBatch(args), absorb);
    this.#scripts = new Scripts(client);
    this.#keys = keyList(fixedKeys(config.prefix));
    this.#idPrefix = `${config.instanceId}:`;
  }

  /** True while commands can be sent. */
  get ready(): boolean {
    return this.#client.status === "ready";
  }

  /** The ticket's id in Redis. */
  id(ticket: Ticket): string {
    return ticketId(this.#config.instanceId, ticket.seq);
  }

  /** The scheduler's `seq` of one of this instance's ticket ids; undefined for anyone else's. */
  seqOf(id: string): number | undefined {
    if (!id.startsWith(this.#idPrefix)) return undefined;
    const seq = Number(id.slice(this.#idPrefix.length));
    return Number.isInteger(seq) ? seq : undefined;
  }

  /** Loads every script; bounded by `commandTimeoutMs` on a client passed in too. */
  load(): Promise<void> {
    const load = this.#scripts.load();
    return this.#config.client === undefined
      ? load
      : within(load, this.#config.commandTimeoutMs, "SCRIPT LOAD");
  }

  /**
   * Redis's `maxmemory-policy`, or undefined when it cannot be read (`CONFIG` is often disabled on
   * managed Redis).
   */
  evictionPolicy(): Promise<string | undefined> {
    const read = this.#client.config("GET", "maxmemory-policy") as Promise<unknown>;
    return within(read, this.#config.commandTimeoutMs, "CONFIG GET").then(
      (reply) => (Array.isArray(reply) && typeof reply[1] === "string" ? reply[1] : undefined),
      () => undefined,
    );
  }

  /**
   * Resolves with what `done` makes of the ticket's status as the script wrote it (see enqueue.lua and
   * `enqueueStatus`), after the reply's grants were absorbed; or with what `failed` makes of the error.
   */
  enqueue<T, C = undefined>(
    ticket: Ticket,
    done: (status: string, context: C) => T,
    failed: (error: unknown, context: C) => T,
    context?: C,
  ): Promise<T> {
    return this.#batched("enqueue", this.#ticketArgs(ticket), done, failed, context);
  }

  /**
   * A preemption victim of this instance let go of its slot (see yield.lua): the slot goes to its
   * arrival, and the ticket waits again when `requeue`. Sent after the calls gathered before it.
   */
  yieldSlot(ticket: Ticket, requeue: boolean): Promise<Reply> {
    return this.#run("yield", [this.#config.leaseMs, requeue ? "1" : "0", ...this.#ticketArgs(ticket)]);
  }

  /** Running tickets never to be chosen as victims again in this run (see spare.lua). */
  spare(ids: readonly string[]): Promise<Reply> {
    return this.#run("spare", ids);
  }

  /** A ticket as enqueue.lua and yield.lua take it: eight values. */
  #ticketArgs(ticket: Ticket): Array<string | number> {
    const byScheduler = this.#config.agingClock === "scheduler";
    const ageMs = Math.max(0, this.clock!.now() - ticket.enqueuedAt);
    return [
      this.id(ticket),
      ticket.priority,
      tenantInRedis(ticket.tenant),
      ticket.cost,
      ticket.tokens ?? 0,
      ticket.retry ? "1" : "0",
      byScheduler ? String(ticket.enqueuedAt) : "",
      String(ageMs),
    ];
  }

  /**
   * Resolves with what `done` makes of the status of the call that carried the ids, as text: "0", or
   * "-9" (see step.lua); or with what `failed` makes of the error.
   */
  release<T>(ids: readonly string[], done: (status: string) => T, failed: (error: unknown) => T): Promise<T> {
    return this.#batched("release", ids, done, failed);
  }

  /** As {@link release}, for waiting tickets to take out. */
  remove<T>(ids: readonly string[], done: (status: string) => T, failed: (error: unknown) => T): Promise<T> {
    return this.#batched("remove", ids, done, failed);
  }

  /** The tokens a ticket really used, for its tenant's bucket and counters (see step.lua); as {@link release}. */
  usage<T>(
    ticket: Ticket,
    usage: TokenUsage,
    done: (status: string) => T,
    failed: (error: unknown) => T,
  ): Promise<T> {
    const { inputTokens, outputTokens } = usage;
    const item = [
      ticket.priority,
      tenantInRedis(ticket.tenant),
      ticket.tokens ?? 0,
      inputTokens,
      outputTokens,
    ];
    return this.#batched("usage", item, done, failed);
  }

  /**
   * Writes the configuration and registers this instance. `runs`: this instance has running tasks that
   * it re-registers next (with the epoch it last saw, this tells Redis whether it lost its state).
   * `current`: its heartbeat was renewed within `leaseMs` (only then may it check in after a loss).
   */
  configure(options: StoreConfig, runs: boolean, current: boolean): Promise<Reply> {
    const weights = [...options.tenantWeights].flatMap(([tenant, weight]) => [
      tenantInRedis(tenant),
      String(weight),
    ]);
    const known = this.#epoch;
    const flags = [runs ? "1" : "0", current ? "1" : "0"];
    const args = [configJson(options), this.#config.leaseMs, known, ...flags, this.#live, ...weights];
    return this.#run("configure", args).then((reply) => {
      const epoch = reply.extra[0];
      if (reply.counts !== undefined && epoch !== undefined) {
        this.#checkIn = current && known !== "" && known !== epoch;
        this.#epoch = epoch;
      }
      // After a loss the new state counts only who is back so far: keep the count from before it.
      if (reply.live !== undefined && !this.#checkIn) this.#live = reply.live;
      return reply;
    });
  }

  tick(running: readonly Ticket[]): Promise<Reply> {
    const ids = running.map((ticket) => this.id(ticket));
    return this.#run("tick", [this.#config.leaseMs, ...ids]).then((reply) => {
      // a tick that finds this instance unregistered (status 1) is already after a loss
      if (reply.live !== undefined && reply.status === 0) this.#live = reply.live;
      return reply;
    });
  }

  adopt(running: readonly Ticket[]): Promise<Reply> {
    const groups = running.flatMap((t) => [
      this.id(t),
      t.cost,
      t.tokens ?? 0,
      t.priority,
      tenantInRedis(t.tenant),
    ]);
    return this.#run("adopt", [this.#config.leaseMs, this.#checkIn ? "1" : "0", ...groups]);
  }

  /** Proposes a change of the global adaptive limit (see limit.lua); the reply's extra is { limit, epoch }. */
  limit(proposal: LimitProposal): Promise<Reply> {
    const { epoch, limit, floor, max, maxIncrease, force } = proposal;
    return this.#run("limit", [epoch, limit, floor, max, maxIncrease, force ? "1" : "0"]);
  }

  leave(): Promise<Reply> {
    return this.#run("leave", []);
  }

  #batched<T, C = undefined>(
    kind: BatchKind,
    item: ReadonlyArray<string | number>,
    done: (status: string, context: C) => T,
    failed: (error: unknown, context: C) => T,
    context?: C,
  ): Promise<T> {
    if (!this.ready)
      return Promise.reject(this.#notReady()).catch((error: unknown) => failed(error, context as C));
    return this.#batcher.add(kind, item, done, failed, context);
  }

  /** One turn's releases, enqueues and removals in one `step` call (see step.lua). */
  #runBatch({ release, remove, usage, enqueue }: BatchArgs): Promise<Reply> {
    const counts = [release.length, remove.length, usage.length / 5];
    const args = [this.#config.leaseMs, ...counts, ...release, ...remove, ...usage, ...enqueue];
    return this.#run("step", args, false);
  }

  #notReady(): Error {
    return new Error(`The Redis connection is ${this.#client.status}, not ready`);
  }

  /** Runs one script; calls made earlier and still gathered in a batch go out first. */
  #run(name: ScriptName, args: readonly (string | number)[], flushFirst = true): Promise<Reply> {
    if (flushFirst) this.#batcher.flush();
    if (!this.ready) {
      return Promise.reject(this.#notReady());
    }
    const now = this.#config.agingClock === "scheduler" ? String(this.clock!.now()) : "";
    const call = this.#scripts.run(name, this.#keys, [
      this.#config.prefix,
      this.#config.instanceId,
      now,
      ...args,
    ]);
    // The store's own connection has ioredis's commandTimeout; a client passed in gets the same bound here.
    const bounded =
      this.#config.client === undefined ? call : within(call, this.#config.commandTimeoutMs, name);
    return bounded.then(parseReply);
  }
}
