import type { EnqueueResult, Store, StoreConfig, StoreHost, StoreSnapshot, Ticket } from "../store.js";
import { Lane } from "./lane.js";
import type { Linked } from "./links.js";
import { type Choice, pick } from "./picker.js";
import type { TenantQueue } from "./tenant-queue.js";

/**
 * The default store: queues, counts and picker state in this process, every decision synchronous.
 * No promise, microtask or allocation per queued ticket beyond the ticket itself.
 *
 * @example
 * const scheduler = createScheduler({ store: new MemoryStore() }); // the same as passing nothing
 */
export class MemoryStore implements Store {
  #host: StoreHost | null = null;
  #options: StoreConfig | null = null;
  #lanes: Lane[] = [];
  readonly #byName = new Map<string, Lane>();
  #running = 0;
  #queued = 0;
  /** Slots held back for priorities running below their `reserved`. */
  #reservedIdle = 0;
  /** Stride scheduling's virtual time: the pass of the last start. */
  #virtualTime = 0;
  #pumping = false;
  readonly #pick: Choice = { lane: null, ticket: null, aged: false };
  readonly #weightOf = (tenant: string): number => this.#options?.tenantWeights.get(tenant) ?? 1;
  readonly #fits = (lane: Lane, ticket: Ticket): boolean => this.#fitsNow(lane, ticket.cost);

  attach(host: StoreHost, options: StoreConfig): void {
    if (this.#host !== null) throw new Error("A MemoryStore serves one scheduler; create one per scheduler.");
    this.#host = host;
    this.configure(options);
  }

  configure(options: StoreConfig): void {
    this.#options = options;
    this.#lanes = options.priorities.map((config) => {
      const lane = this.#byName.get(config.name) ?? new Lane(config);
      lane.config = config;
      this.#byName.set(config.name, lane);
      for (const queue of lane.tenants.values()) queue.weight = this.#weightOf(queue.name);
      return lane;
    });
    this.#reservedIdle = this.#lanes.reduce((sum, lane) => sum + idleReserve(lane), 0);
    this.#pump();
  }

  enqueue(ticket: Ticket): EnqueueResult {
    const lane = this.#lane(ticket.priority);
    const options = this.#options!;
    if (lane.queued >= lane.config.maxQueue || this.#queued >= options.maxQueue) return "full";
    if (this.#grantAtOnce(lane, ticket)) return "granted";
    lane.push(ticket as Linked, lane.tenant(ticket.tenant, this.#weightOf));
    if (lane.queued === 1) lane.pass = Math.max(lane.pass, this.#virtualTime);
    this.#queued++;
    this.#pump();
    return "queued";
  }

  tryGrant(ticket: Ticket): boolean {
    return this.#grantAtOnce(this.#lane(ticket.priority), ticket);
  }

  /** The fast path: nothing waits and the ticket fits, so it takes its slot without queueing. */
  #grantAtOnce(lane: Lane, ticket: Ticket): boolean {
    if (this.#queued !== 0 || !this.#fitsNow(lane, ticket.cost)) return false;
    // Asked and granted in the same moment: the ticket's enqueue time is the start time.
    this.#take(lane, lane.tenant(ticket.tenant, this.#weightOf), ticket.cost, ticket.enqueuedAt);
    return true;
  }

  remove(ticket: Ticket): boolean {
    const lane = this.#byName.get(ticket.priority);
    const queue = lane?.tenants.get(ticket.tenant);
    if (lane === undefined || queue === undefined || !queue.has(ticket as Linked)) return false;
    lane.remove(ticket as Linked);
    this.#queued--;
    // A ticket that did not fit may have been blocking its lane; what waits behind it may fit now.
    this.#pump();
    return true;
  }

  release(ticket: Ticket): void {
    const lane = this.#lane(ticket.priority);
    const queue = lane.tenants.get(ticket.tenant)!;
    this.#reservedIdle -= idleReserve(lane);
    lane.running -= ticket.cost;
    this.#reservedIdle += idleReserve(lane);
    queue.running -= ticket.cost;
    this.#running -= ticket.cost;
    lane.settled(queue);
    this.#pump();
  }

  removeAll(): Ticket[] {
    const all = this.#lanes.flatMap((lane) => lane.removeAll());
    this.#queued -= all.length;
    return all;
  }

  /** Tenant queues held over all priorities: the active ones and a bounded number of idle ones. */
  get tenantQueues(): number {
    let count = 0;
    for (const lane of this.#lanes) count += lane.tenants.size;
    return count;
  }

  depth(priority: string): number {
    return this.#byName.get(priority)?.queued ?? 0;
  }

  snapshot(tenantLimit: number): StoreSnapshot {
    const priorities: Record<string, { running: number; queued: number }> = {};
    const tenants: Array<{ tenant: string; priority: string; running: number; queued: number }> = [];
    for (const lane of this.#lanes) {
      priorities[lane.config.name] = { running: lane.running, queued: lane.queued };
      for (const queue of lane.tenants.values()) {
        if (queue.idle) continue;
        tenants.push({
          tenant: queue.name,
          priority: lane.config.name,
          running: queue.running,
          queued: queue.size,
        });
      }
    }
    tenants.sort((a, b) => b.queued + b.running - (a.queued + a.running));
    tenants.length = Math.min(tenants.length, tenantLimit);
    return { running: this.#running, queued: this.#queued, priorities, tenants };
  }

  detach(): void {
    this.#host = null;
  }

  #lane(name: string): Lane {
    const lane = this.#byName.get(name);
    if (lane === undefined) throw new Error(`Unknown priority "${name}" reached the store`);
    return lane;
  }

  /** All limits at once: the total, the priority's cap, and the slots other priorities keep in reserve. */
  #fitsNow(lane: Lane, cost: number): boolean {
    const max = this.#options!.maxConcurrency;
    const reservedByOthers = this.#reservedIdle - idleReserve(lane);
    return (
      lane.running + cost <= lane.config.maxConcurrency && this.#running + cost + reservedByOthers <= max
    );
  }

  #take(lane: Lane, queue: TenantQueue, cost: number, now: number): void {
    lane.lastStartAt = now;
    this.#reservedIdle -= idleReserve(lane);
    lane.running += cost;
    this.#reservedIdle += idleReserve(lane);
    queue.running += cost;
    this.#running += cost;
  }

  /** Grants slots while something waits that fits. Re-entrant calls (from a grant) fold into the loop. */
  #pump(): void {
    if (this.#pumping || this.#host === null) return;
    this.#pumping = true;
    try {
      const { clock } = this.#host;
      while (this.#queued > 0 && this.#running < this.#options!.maxConcurrency) {
        const now = clock.now();
        if (!pick(this.#lanes, now, this.#fits, this.#pick)) break;
        this.#start(this.#pick.lane!, this.#pick.ticket!, this.#pick.aged, now);
      }
    } finally {
      this.#pumping = false;
    }
  }

  #start(lane: Lane, ticket: Linked, aged: boolean, now: number): void {
    // Count the slot first, so that a tenant left with nothing waiting is not forgotten while it runs.
    this.#take(lane, lane.tenants.get(ticket.tenant)!, ticket.cost, now);
    if (aged) lane.remove(ticket);
    else lane.takeNext();
    this.#queued--;
    this.#virtualTime = lane.pass;
    lane.pass += 1 / lane.config.weight;
    this.#host!.grant(ticket);
  }
}

function idleReserve(lane: Lane): number {
  return Math.max(0, lane.config.reserved - lane.running);
}
