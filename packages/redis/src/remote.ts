import type { Clock, ResolvedOptions, Ticket } from "@llm-scheduler/core";
import { fixedKeys, keyList, ticketId } from "./keys.js";
import type { RedisClient, ResolvedRedisOptions } from "./options.js";
import { parseReply, type Reply } from "./replies.js";
import { type ScriptName, Scripts } from "./scripts.js";

const finite = (value: number): number => (value === Number.POSITIVE_INFINITY ? -1 : value);

/** The limits and priorities as the scripts read them (`cfg`); -1 stands for Infinity. */
export function configJson(options: ResolvedOptions): string {
  return JSON.stringify({
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
  });
}

/**
 * This instance's side of the conversation with Redis: one method per script, building its arguments
 * and reading its reply. Calls fail at once (rather than wait in a queue) while the connection is not
 * ready, so that the store can fall back or fail closed.
 */
export class Remote {
  readonly #client: RedisClient;
  readonly #scripts: Scripts;
  readonly #keys: string[];
  readonly #config: ResolvedRedisOptions;
  readonly #idPrefix: string;
  clock: Clock | null = null;

  constructor(client: RedisClient, config: ResolvedRedisOptions) {
    this.#client = client;
    this.#config = config;
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

  load(): Promise<void> {
    return this.#scripts.load();
  }

  enqueue(ticket: Ticket): Promise<Reply> {
    const byScheduler = this.#config.agingClock === "scheduler";
    const ageMs = Math.max(0, this.clock!.now() - ticket.enqueuedAt);
    return this.#run("enqueue", [
      this.id(ticket),
      ticket.priority,
      ticket.tenant,
      ticket.cost,
      ticket.retry ? "1" : "0",
      byScheduler ? String(ticket.enqueuedAt) : "",
      String(ageMs),
      this.#config.leaseMs,
    ]);
  }

  release(ids: readonly string[]): Promise<Reply> {
    return this.#run("release", ids);
  }

  remove(ids: readonly string[]): Promise<Reply> {
    return this.#run("remove", ids);
  }

  configure(options: ResolvedOptions): Promise<Reply> {
    const weights = [...options.tenantWeights].flatMap(([tenant, weight]) => [tenant, String(weight)]);
    return this.#run("configure", [configJson(options), this.#config.leaseMs, ...weights]);
  }

  tick(running: readonly Ticket[]): Promise<Reply> {
    return this.#run("tick", [this.#config.leaseMs, ...running.map((ticket) => this.id(ticket))]);
  }

  adopt(running: readonly Ticket[]): Promise<Reply> {
    const groups = running.flatMap((t) => [this.id(t), t.cost, t.priority, t.tenant]);
    return this.#run("adopt", [this.#config.leaseMs, ...groups]);
  }

  leave(): Promise<Reply> {
    return this.#run("leave", []);
  }

  #run(name: ScriptName, args: readonly (string | number)[]): Promise<Reply> {
    if (!this.ready) {
      return Promise.reject(new Error(`The Redis connection is ${this.#client.status}, not ready`));
    }
    const now = this.#config.agingClock === "scheduler" ? String(this.clock!.now()) : "";
    return this.#scripts
      .run(name, this.#keys, [this.#config.prefix, this.#config.instanceId, now, ...args])
      .then(parseReply);
  }
}
