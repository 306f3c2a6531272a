import type { Ticket, TokenUsage } from "@llm-scheduler/core/kit";
import { MemoryStore } from "@llm-scheduler/core/kit";
import { Inboxes } from "./inboxes.js";
import { ObjectClock } from "./object-clock.js";
import { CONFIG_KEY, EPOCH_KEY, LEASE_PREFIX, type ObjectStorage } from "./object-storage.js";
import { unbounded } from "./unbounded.js";
import type { Counts, Message, Reply, WireConfig, WireTicket } from "./wire.js";

/** One ticket the object knows: waiting in the memory store, or holding a lease. */
interface Entry {
  readonly key: string;
  readonly client: string;
  /** The ticket the memory store holds (it links it into its queues: one object per entry). */
  readonly ticket: Ticket;
  readonly wire: WireTicket;
  leased: boolean;
  /** Leased: when the lease lapses unless renewed (object time). */
  expiresAt: number;
  /** Waiting: when its scheduler last asked about it, or stopped asking (object time). */
  seenAt: number;
  /** Waiting: answers the scheduler's pending `wait` call. */
  waiter: (() => void) | null;
}

/** A lease as kept in storage, so that the limit survives a restart of the object. */
interface StoredLease {
  readonly client: string;
  readonly wire: WireTicket;
  readonly grantedAt: number;
}

const NO_COUNTS: Counts = { running: 0, queued: 0, priorities: {} };

/**
 * The state of one Durable Object: the core's own {@link MemoryStore} (so the picking rules are the
 * memory store's, by construction), the leases of granted tickets, and each client's grants not yet
 * told to it. Every call is handled whole before the next (the object is single-threaded); only a
 * `wait` call yields, until its ticket is granted or its wait is over.
 */
export class ObjectQueue {
  readonly #storage: ObjectStorage;
  readonly #clock = new ObjectClock();
  #store: MemoryStore | null = null;
  #config: WireConfig | null = null;
  #epoch = 0;
  #seq = 0;
  readonly #entries = new Map<string, Entry>();
  readonly #bySeq = new Map<number, Entry>();
  readonly #inboxes = new Inboxes();
  /** Units leased, per priority and in all: kept here so that a reply's counts cost O(priorities). */
  readonly #running = new Map<string, number>();
  #runningTotal = 0;
  #nextSweep = 0;
  #alarmAt: number | null = null;

  constructor(storage: ObjectStorage) {
    this.#storage = storage;
  }

  /** Loads the configuration and the leases kept in storage, and starts the object's next life. */
  async restore(): Promise<void> {
    const storage = this.#storage;
    const [config, epoch, leases, alarm] = await Promise.all([
      storage.get<WireConfig>(CONFIG_KEY),
      storage.get<number>(EPOCH_KEY),
      storage.list<StoredLease>({ prefix: LEASE_PREFIX }),
      storage.getAlarm(),
    ]);
    this.#epoch = (epoch ?? 0) + 1;
    this.#alarmAt = alarm;
    await storage.put(EPOCH_KEY, this.#epoch);
    if (config === undefined) return;
    // Every lease comes back as it was, whatever the limits say (they held when it was granted), then
    // the real limits apply to what starts next.
    this.#apply(unbounded(config));
    const sorted = [...leases.values()].sort((a, b) => a.grantedAt - b.grantedAt);
    for (const lease of sorted) {
      const entry = this.#admit(lease.client, lease.wire, Date.now());
      if (this.#store!.enqueue(entry.ticket) === "granted") this.#lease(entry, lease.grantedAt, false);
      else this.#forget(entry);
    }
    this.#apply(config);
    this.#ensureAlarm();
  }

  /** Handles one call; see {@link Message} for what each does. */
  async handle(m: Message): Promise<Reply> {
    this.#clock.follow(m.now);
    if (m.config !== undefined) this.#configure(m.config);
    const store = this.#store;
    if (store === null)
      return { unconfigured: true, epoch: this.#epoch, counts: NO_COUNTS, granted: [], lost: [] };
    this.#sweep(false);
    const lost = m.renew === undefined ? [] : this.#renew(m.client, m.renew);
    let answer: Partial<Reply> = {};
    try {
      answer = await this.#run(m, lost);
    } catch (error) {
      answer = { error: error instanceof Error ? error.message : String(error) };
    }
    this.#ensureAlarm();
    const now = Date.now();
    const granted = this.#inboxes.take(m.client).map((key): [string, number] => {
      const left = (this.#entries.get(key)?.expiresAt ?? now) - now;
      return [key, Math.max(0, left)];
    });
    return { ...answer, epoch: this.#epoch, counts: this.#counts(), granted, lost };
  }

  /** Lapsed leases and abandoned waiting tickets go; called by the object's alarm. */
  alarm(): void {
    this.#alarmAt = null;
    this.#sweep(true);
    this.#ensureAlarm();
  }

  #run(m: Message, lost: string[]): Partial<Reply> | Promise<Partial<Reply>> {
    switch (m.op) {
      case "enqueue":
        return { result: this.#enqueue(m.client, m.ticket, m.now) };
      case "wait":
        return this.#wait(m.client, m.ticket, m.epoch, m.waitMs, m.now, lost);
      case "remove":
        return { removed: this.#remove(this.#entries.get(m.key), m.client) };
      case "release": {
        const entry = this.#entries.get(m.key);
        if (entry?.leased === true && entry.client === m.client) this.#release(entry);
        return {};
      }
      case "usage":
        this.#usage(m.client, m.ticket, m.usage);
        return {};
      case "removeAll":
        return { removed: this.#removeAll(m.client) };
      case "leave":
        this.#removeAll(m.client);
        for (const entry of [...this.#entries.values()]) if (entry.client === m.client) this.#release(entry);
        this.#inboxes.forget(m.client);
        return {};
      default:
        return {}; // configure, renew: done above
    }
  }

  #configure(config: WireConfig): void {
    this.#apply(config);
    this.#storage.put(CONFIG_KEY, config).catch(() => {}); // the output gate holds the reply until it is written
  }

  #apply(config: WireConfig): void {
    this.#config = config;
    this.#clock.mode = config.agingClock;
    const options = { ...config, clock: this.#clock };
    if (this.#store !== null) {
      this.#store.configure(options);
      return;
    }
    this.#store = new MemoryStore();
    this.#store.attach(
      {
        clock: this.#clock,
        grant: (ticket) => this.#granted(ticket),
        fail: () => {}, // the memory store neither fails nor revokes on its own
        revoke: () => {},
      },
      options,
    );
  }

  #enqueue(client: string, wire: WireTicket, sent: number): Reply["result"] {
    const known = this.#entries.get(wire.key);
    if (known !== undefined) {
      if (known.leased) this.#tell(known); // a grant its scheduler may not have heard of (a reply lost)
      return "queued";
    }
    const entry = this.#admit(client, wire, this.#clock.joinedAt(wire.enqueuedAt, sent));
    let result: NonNullable<Reply["result"]>;
    try {
      result = this.#store!.enqueue(entry.ticket);
    } catch (error) {
      this.#forget(entry);
      throw error;
    }
    if (result === "granted") this.#lease(entry, Date.now(), true);
    else if (result !== "queued") this.#forget(entry);
    return result; // "queued" and already granted: the grant is in the caller's inbox, as the memory store tells it
  }

  #wait(
    client: string,
    wire: WireTicket,
    epoch: number,
    waitMs: number,
    sent: number,
    lost: string[],
  ): Partial<Reply> | Promise<Partial<Reply>> {
    let entry = this.#entries.get(wire.key);
    if (entry === undefined) {
      // Unknown in the life it was queued in: it left (swept). Unknown after a restart: sent again.
      if (epoch === this.#epoch) {
        lost.push(wire.key);
        return {};
      }
      const result = this.#enqueue(client, wire, sent);
      entry = this.#entries.get(wire.key);
      if (entry === undefined) return { result };
    }
    if (entry.leased) {
      this.#tell(entry);
      return {};
    }
    const waiting = entry;
    waiting.waiter?.();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        if (waiting.waiter === done) waiting.waiter = null;
        waiting.seenAt = Date.now();
        resolve({});
      };
      const timer = setTimeout(done, waitMs);
      waiting.waiter = done;
    });
  }

  #remove(entry: Entry | undefined, client: string): boolean {
    if (entry === undefined || entry.client !== client) return false;
    if (entry.leased) {
      this.#tell(entry);
      return false;
    }
    if (!this.#store!.remove(entry.ticket)) return false;
    this.#forget(entry);
    return true;
  }

  /**
   * A ticket's real token use, while it runs or just after (as the memory store takes it): corrects its
   * tenant's bucket and fairness counter. Only the ticket's own client may report it.
   */
  #usage(client: string, wire: WireTicket, usage: TokenUsage): void {
    if (!wire.key.startsWith(`${client}:`)) return;
    const entry = this.#entries.get(wire.key);
    if (entry !== undefined && !entry.leased) return; // still waiting: nothing was charged yet
    const { priority, tenant, cost, tokens, retry, enqueuedAt } = wire;
    const ticket = entry?.ticket ?? {
      seq: 0,
      priority,
      tenant,
      cost,
      ...(tokens === undefined ? {} : { tokens }),
      retry,
      enqueuedAt,
    };
    this.#store!.reportUsage(ticket, usage);
  }

  #removeAll(client: string): string[] {
    const removed: string[] = [];
    for (const entry of [...this.#entries.values()]) {
      if (entry.client === client && !entry.leased && this.#remove(entry, client)) removed.push(entry.key);
    }
    return removed;
  }

  #renew(client: string, keys: readonly string[]): string[] {
    const lost: string[] = [];
    const until = Date.now() + this.#config!.leaseMs;
    for (const key of keys) {
      const entry = this.#entries.get(key);
      if (entry?.leased === true && entry.client === client) entry.expiresAt = until;
      else if (entry === undefined) lost.push(key);
    }
    return lost;
  }

  #admit(client: string, wire: WireTicket, enqueuedAt: number): Entry {
    const { key, priority, tenant, cost, tokens, retry } = wire;
    const ticket: Ticket = {
      seq: ++this.#seq,
      priority,
      tenant,
      cost,
      ...(tokens === undefined ? {} : { tokens }),
      retry,
      enqueuedAt,
    };
    const now = Date.now();
    const entry: Entry = {
      key,
      client,
      ticket,
      wire,
      leased: false,
      expiresAt: 0,
      seenAt: now,
      waiter: null,
    };
    this.#entries.set(key, entry);
    this.#bySeq.set(ticket.seq, entry);
    return entry;
  }

  /** The memory store granted a waiting ticket a slot. */
  #granted(ticket: Ticket): void {
    const entry = this.#bySeq.get(ticket.seq);
    if (entry !== undefined) this.#lease(entry, Date.now(), true);
  }

  #lease(entry: Entry, grantedAt: number, store: boolean): void {
    if (!entry.leased) this.#countRunning(entry, 1);
    entry.leased = true;
    entry.expiresAt = Date.now() + this.#config!.leaseMs;
    if (store) {
      const lease: StoredLease = { client: entry.client, wire: entry.wire, grantedAt };
      this.#storage.put(LEASE_PREFIX + entry.key, lease).catch(() => {});
    }
    this.#tell(entry);
    entry.waiter?.();
  }

  /** Puts a granted key in its client's inbox (once), for the next reply to that client. */
  #tell(entry: Entry): void {
    this.#inboxes.tell(entry.client, entry.key);
  }

  #release(entry: Entry): void {
    if (entry.leased) {
      this.#countRunning(entry, -1);
      this.#forget(entry);
      this.#storage.delete(LEASE_PREFIX + entry.key).catch(() => {});
      this.#store!.release(entry.ticket);
    } else if (this.#store!.remove(entry.ticket)) {
      this.#forget(entry);
    }
  }

  #forget(entry: Entry): void {
    this.#entries.delete(entry.key);
    this.#bySeq.delete(entry.ticket.seq);
    entry.waiter?.();
    this.#inboxes.drop(entry.client, entry.key); // a grant nobody heard of leaves with its entry
  }

  /** Releases lapsed leases and drops waiting tickets nobody has asked about for a lease's length. */
  #sweep(force: boolean): void {
    const now = Date.now();
    const leaseMs = this.#config?.leaseMs ?? 0;
    if (!force && now < this.#nextSweep) return;
    this.#nextSweep = now + Math.max(50, leaseMs / 4);
    for (const entry of [...this.#entries.values()]) {
      const lapsed = entry.leased
        ? entry.expiresAt <= now
        : entry.waiter === null && entry.seenAt + leaseMs <= now;
      if (lapsed && this.#entries.get(entry.key) === entry) this.#release(entry);
    }
  }

  /** While anything is leased or waits, an alarm sweeps even if no call comes (an isolate died). */
  #ensureAlarm(): void {
    if (this.#alarmAt !== null || this.#entries.size === 0 || this.#config === null) return;
    this.#alarmAt = Date.now() + Math.max(50, this.#config.leaseMs / 2);
    this.#storage.setAlarm(this.#alarmAt).catch(() => {});
  }

  #countRunning({ ticket }: Entry, sign: 1 | -1): void {
    this.#running.set(ticket.priority, (this.#running.get(ticket.priority) ?? 0) + sign * ticket.cost);
    this.#runningTotal += sign * ticket.cost;
  }

  /** The global counts every reply carries (the memory store's snapshot would walk every tenant). */
  #counts(): Counts {
    const priorities: Record<string, { running: number; queued: number }> = {};
    let queued = 0;
    for (const { name } of this.#config!.priorities) {
      const waiting = this.#store!.depth(name);
      queued += waiting;
      priorities[name] = { running: this.#running.get(name) ?? 0, queued: waiting };
    }
    return { running: this.#runningTotal, queued, priorities };
  }
}
