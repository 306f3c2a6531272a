import type {
  EnqueueResult,
  Store,
  StoreConfig,
  StoreHost,
  StoreSnapshot,
  Ticket,
  TokenUsage,
} from "@llm-scheduler/core/kit";
import { type ClientEntry, ClientLedger } from "./client-ledger.js";
import { droppedWhileWaiting, leaseLapsed, refusedAgain, unreachable, unrenewed } from "./errors.js";
import {
  type DurableObjectStoreOptions,
  type ResolvedDurableObjectStoreOptions,
  resolveDurableObjectOptions,
} from "./options.js";
import { Renewals } from "./renewals.js";
import {
  type Counts,
  decode,
  encode,
  type Message,
  type Reply,
  type WireConfig,
  wireConfig,
} from "./wire.js";

/** A wait that failed (the object restarting, a network error) is tried again after this long. */
const RETRY_MS = 200;

/** Distributes `Omit` over the message union, so each operation keeps its own fields. */
type Call = Message extends infer M
  ? M extends Message
    ? Omit<M, "client" | "now" | "config" | "renew">
    : never
  : never;

/**
 * A {@link Store} backed by one Durable Object ({@link SchedulerObject}) per scheduler name, so that every
 * Workers isolate shares one queue and one limit, picked by the core's own memory store inside the
 * object. Each call is one request to the object; a waiting request asks about its turn once per
 * `waitMs` (answered at once when granted); running slots are leases, renewed together every third of
 * `leaseMs` by the isolate's live requests and taken back by the object when an isolate stops renewing.
 *
 * It does no I/O until the first task, so a scheduler using it may be created at a Worker's module scope.
 *
 * @example
 * import { env } from "cloudflare:workers";
 * const store = new DurableObjectStore({ namespace: env.LLM_SCHEDULER, name: "llama-70b" });
 * const scheduler = createScheduler({ maxConcurrency: 8, store });
 */
export class DurableObjectStore implements Store {
  #clientId: string | null = null;
  readonly #options: ResolvedDurableObjectStoreOptions;
  readonly #ledger = new ClientLedger();
  #host: StoreHost | null = null;
  #config: WireConfig | null = null;
  #sendConfig = true;
  #counts: Counts = { running: 0, queued: 0, priorities: {} };
  #epoch = 0;
  readonly #renewals: Renewals;
  #detached = false;

  constructor(options: DurableObjectStoreOptions) {
    this.#options = resolveDurableObjectOptions(options);
    this.#renewals = new Renewals(this.#options.leaseMs);
  }

  /**
   * This isolate's id in the object (its tickets are `<clientId>:<seq>`): random, drawn at the first
   * call (workerd allows no random values at a module's top level, where a scheduler may be created).
   */
  get clientId(): string {
    this.#clientId ??= crypto.randomUUID();
    return this.#clientId;
  }

  attach(host: StoreHost, config: StoreConfig): void {
    if (this.#host !== null || this.#detached) {
      throw new Error("A DurableObjectStore serves one scheduler; create one store per scheduler.");
    }
    this.#host = host;
    this.#config = wireConfig(config, this.#options.leaseMs, this.#options.agingClock);
  }

  configure(config: StoreConfig): Promise<void> | undefined {
    this.#config = wireConfig(config, this.#options.leaseMs, this.#options.agingClock);
    this.#sendConfig = true;
    if (this.#host === null) return;
    return this.#call({ op: "configure" }).then(() => {});
  }

  async enqueue(ticket: Ticket): Promise<EnqueueResult> {
    const entry = this.#ledger.add(`${this.clientId}:${ticket.seq}`, ticket, this.#epoch);
    let reply: Reply;
    const sentAt = Date.now();
    try {
      reply = await this.#call({ op: "enqueue", ticket: wireTicket(entry) });
    } catch (error) {
      this.#ledger.delete(entry);
      throw unreachable(this.#options.name, error);
    }
    entry.epoch = reply.epoch;
    entry.answered = true;
    const result = reply.result;
    if (reply.error !== undefined || result === undefined) {
      this.#ledger.delete(entry);
      throw new Error(reply.error ?? "The scheduler object did not answer the enqueue");
    }
    if (result !== "granted" && result !== "queued") {
      this.#ledger.delete(entry);
      return result;
    }
    if (result === "granted") {
      if (entry.state === "waiting") entry.since = sentAt;
      entry.state = "running";
    } else if (entry.state === "running") {
      this.#host?.grant(entry.ticket); // queued and granted already: told before the answer, as memory does
    }
    void this.#follow(entry);
    return result;
  }

  async remove(ticket: Ticket): Promise<boolean> {
    const entry = this.#ledger.get(`${this.clientId}:${ticket.seq}`);
    if (entry === undefined || entry.state !== "waiting") return false;
    const reply = await this.#call({ op: "remove", key: entry.key });
    if (reply.removed !== true) return false; // granted: the grant came, or comes, through host.grant
    this.#ledger.delete(entry);
    return true;
  }

  release(ticket: Ticket): Promise<void> | undefined {
    const entry = this.#ledger.get(`${this.clientId}:${ticket.seq}`);
    if (entry === undefined) return;
    this.#ledger.delete(entry);
    return this.#giveBack(entry.key);
  }

  /** Sent while the ticket runs or after its release (its tenant's figures are corrected all the same). */
  reportUsage(ticket: Ticket, usage: TokenUsage): Promise<void> | undefined {
    const key = `${this.clientId}:${ticket.seq}`;
    if (this.#ledger.get(key)?.state === "waiting") return;
    const { inputTokens, outputTokens } = usage;
    return this.#call({
      op: "usage",
      ticket: wireOf(key, ticket),
      usage: { inputTokens, outputTokens },
    }).then(() => {}, this.#options.onError);
  }

  async removeAll(): Promise<Ticket[]> {
    const waiting = this.#ledger.list("waiting");
    if (waiting.length === 0) return [];
    let removed: readonly string[];
    try {
      const reply = await this.#call({ op: "removeAll" });
      removed = Array.isArray(reply.removed) ? reply.removed : [];
    } catch (error) {
      this.#options.onError(error); // unreachable: the object drops them once nobody asks about them
      removed = waiting.map((entry) => entry.key);
    }
    const gone = new Set(removed);
    const tickets: Ticket[] = [];
    for (const entry of waiting) {
      if (!gone.has(entry.key) || !this.#ledger.has(entry) || entry.state !== "waiting") continue;
      this.#ledger.delete(entry);
      tickets.push(entry.ticket);
    }
    return tickets;
  }

  depth(priority: string): number {
    return this.#counts.priorities[priority]?.queued ?? 0;
  }

  /** Global counts as the object last answered them; tenants: this isolate's busiest. */
  snapshot(tenantLimit: number): StoreSnapshot {
    const { running, queued, priorities } = this.#counts;
    return { running, queued, priorities, tenants: this.#ledger.tenants(tenantLimit) };
  }

  async detach(): Promise<void> {
    if (this.#detached) return;
    this.#detached = true;
    if (
      this.#host !== null &&
      this.#ledger.list("running").length + this.#ledger.list("waiting").length > 0
    ) {
      await this.#call({ op: "leave" }).catch(this.#options.onError);
    }
    this.#ledger.clear();
    this.#host = null;
  }

  /** Follows one ticket from its enqueue: asks about its turn while it waits, renews leases while it runs. */
  async #follow(entry: ClientEntry): Promise<void> {
    const renewals = this.#renewals;
    while (!this.#detached && this.#ledger.has(entry)) {
      if (entry.state !== "running") {
        try {
          const { waitMs } = this.#options;
          const reply = await this.#call({
            op: "wait",
            ticket: wireTicket(entry),
            epoch: entry.epoch,
            waitMs,
          });
          this.#waited(entry, reply);
        } catch (error) {
          this.#options.onError(error);
          await sleep(RETRY_MS);
        }
        continue;
      }
      // Each running ticket's own request keeps a timer; whichever fires first renews them all.
      await sleep(Math.min(renewals.everyMs, renewals.deadline(entry.since) - Date.now()));
      if (!this.#ledger.has(entry)) continue;
      if (renewals.due(Date.now())) await this.#call({ op: "renew" }).catch(this.#options.onError);
      if (this.#ledger.has(entry) && Date.now() >= renewals.deadline(entry.since)) this.#stop(entry);
    }
  }

  /** No renewal reached the object in time: stop the task before the object may give its slot away. */
  #stop(entry: ClientEntry): void {
    this.#ledger.delete(entry);
    this.#host?.revoke(entry.ticket, unrenewed(entry.ticket, this.#options.leaseMs));
    void this.#giveBack(entry.key);
  }

  /** A waiting ticket sent again after the object restarted: its new life, or its refusal. */
  #waited(entry: ClientEntry, reply: Reply): void {
    const { result } = reply;
    if (result === undefined || !this.#ledger.has(entry)) return;
    if (result === "granted" || result === "queued") {
      entry.epoch = reply.epoch;
      return;
    }
    this.#ledger.delete(entry);
    if (entry.state === "waiting")
      this.#host?.fail(entry.ticket, refusedAgain(entry.ticket, this.#options.name));
  }

  #giveBack(key: string): Promise<void> {
    // If the release does not arrive, the lease lapses by itself.
    return this.#call({ op: "release", key }).then(() => {}, this.#options.onError);
  }

  async #call(fields: Call): Promise<Reply> {
    const host = this.#host;
    if (host === null || this.#config === null) throw new Error("The DurableObjectStore is not attached");
    const message: Record<string, unknown> = { ...fields, client: this.clientId, now: host.clock.now() };
    const sentAt = Date.now();
    const running = this.#ledger.list("running");
    // Not on a wait: its answer may take up to waitMs, and the renewals count only once answered.
    const renewing = running.length > 0 && fields.op !== "wait" && this.#renewals.ride(sentAt);
    if (renewing) {
      message.renew = running.map((entry) => entry.key);
      this.#renewals.sent(sentAt);
    }
    const withConfig = this.#sendConfig;
    if (withConfig) message.config = this.#config;
    let reply = await this.#post(message);
    if (reply.unconfigured === true) reply = await this.#post({ ...message, config: this.#config });
    else if (withConfig) this.#sendConfig = false;
    if (renewing) this.#renewals.confirmed(sentAt);
    this.#absorb(reply);
    return reply;
  }

  async #post(message: Record<string, unknown>): Promise<Reply> {
    const { namespace, name } = this.#options;
    const stub = namespace.get(namespace.idFromName(name));
    const response = await stub.fetch("https://scheduler-object/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: encode(message),
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(`The scheduler object answered ${response.status}: ${text.slice(0, 200)}`);
    return decode(text) as Reply;
  }

  /** What every reply tells: global counts, this isolate's grants, and keys the object no longer knows. */
  #absorb(reply: Reply): void {
    this.#counts = reply.counts;
    this.#epoch = Math.max(this.#epoch, reply.epoch);
    const host = this.#host;
    const receivedAt = Date.now();
    for (const [key, leaseLeftMs] of reply.granted) {
      const entry = this.#ledger.get(key);
      if (entry === undefined) {
        void this.#giveBack(key); // a grant for a ticket that is gone: the slot goes straight back
      } else if (entry.state === "waiting") {
        entry.state = "running";
        // As if renewed then: a reply in transit for longer than the watchdog's margin would fool it.
        entry.since = Math.min(receivedAt, receivedAt + leaseLeftMs - this.#options.leaseMs);
        // Before its enqueue has answered, the answer tells the scheduler: it says "granted".
        if (entry.answered) host?.grant(entry.ticket);
      }
    }
    for (const key of reply.lost) {
      const entry = this.#ledger.get(key);
      if (entry === undefined) continue;
      this.#ledger.delete(entry);
      if (entry.state === "running")
        host?.revoke(entry.ticket, leaseLapsed(entry.ticket, this.#options.leaseMs));
      else host?.fail(entry.ticket, droppedWhileWaiting(entry.ticket, this.#options.name));
    }
  }
}

function wireTicket({ key, ticket }: ClientEntry) {
  return wireOf(key, ticket);
}

function wireOf(key: string, ticket: Ticket) {
  const { priority, tenant, cost, tokens, retry, enqueuedAt } = ticket;
  return { key, priority, tenant, cost, ...(tokens === undefined ? {} : { tokens }), retry, enqueuedAt };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer: unknown = setTimeout(resolve, ms);
    (timer as { unref?: () => void }).unref?.();
  });
}
