import { IndexedHeap } from "../heap.js";
import type { ResolvedPriority } from "../store.js";
import { AgeOrder } from "./age-order.js";
import type { Linked } from "./links.js";
import { TenantQueue } from "./tenant-queue.js";

/** Idle tenant queues always kept for reuse (see {@link Lane.tenant}). */
const KEEP_IDLE = 64;

/**
 * One priority's waiting room: a queue per tenant, a ring that gives tenants turns (deficit round robin
 * with tenant weights), and, when the priority ages (a finite `maxWaitMs`), its tickets oldest first.
 * Every operation is O(1) (amortized O(1/min tenant weight) for the turn, amortized O(1) for the sweep
 * of idle tenants and for the age order).
 * The owner calls {@link Lane.settled} when a tenant's running count drops to 0.
 */
export class Lane {
  config: ResolvedPriority;
  /** Stride scheduling: the virtual time of this priority's next start. */
  pass = 0;
  /** Waiting tickets. */
  queued = 0;
  /** Cost units holding a slot. */
  running = 0;
  /** Clock time of this priority's last start (aging counts from it). */
  lastStartAt = Number.NEGATIVE_INFINITY;
  /** Waiting tickets oldest first, kept only while the priority ages (a finite `maxWaitMs`). */
  #ages: AgeOrder | null = null;
  /** Tenant queues by name: the active ones, plus idle ones until the next sweep. */
  readonly tenants = new Map<string, TenantQueue>();
  /** How many queues in `tenants` are idle. */
  #idle = 0;
  #cursor: TenantQueue | null = null;
  /** `fairness: "tokens"`: the waiting tenants, fewest weighted tokens served first (ties: by name). */
  readonly #heap = new IndexedHeap<TenantQueue>(
    (a, b) => a.counter < b.counter || (a.counter === b.counter && a.name < b.name),
  );
  #byTokens = false;
  /** `fairness: "tokens"`: the counter of the last start, where a tenant returning to an empty lane starts. */
  #floor = 0;

  constructor(config: ResolvedPriority) {
    this.config = config;
    this.#followAging();
  }

  /** New settings for this priority (waiting tickets stay). */
  configure(config: ResolvedPriority): void {
    this.config = config;
    this.#followAging();
  }

  /**
   * Keeps the age order while the priority ages, and only then. When it starts to age, the tickets
   * already waiting enter the order by arrival time (ties by `seq`).
   */
  #followAging(): void {
    const aging = Number.isFinite(this.config.maxWaitMs);
    if (!aging) this.#ages = null;
    if (!aging || this.#ages !== null) return;
    const waiting: Linked[] = [];
    for (const queue of this.tenants.values()) {
      for (let ticket = queue.head; ticket !== null; ticket = ticket.next) waiting.push(ticket);
    }
    waiting.sort((a, b) => a.enqueuedAt - b.enqueuedAt || a.seq - b.seq);
    const ages = new AgeOrder();
    for (const ticket of waiting) ages.push(ticket, waiting.length);
    this.#ages = ages;
  }

  /** The ticket that has waited longest, or null (always null while the priority does not age). */
  get oldest(): Linked | null {
    return this.#ages === null ? null : this.#ages.oldest();
  }

  /**
   * The tenant queue for `name`, created on first use; the caller queues or starts a ticket in it at
   * once. A queue that goes idle stays in the map, so a tenant that comes back (the common case: one
   * request after another) costs no map churn; as soon as idle queues outnumber both the active ones
   * and {@link KEEP_IDLE}, they are all dropped, so memory follows the active tenants (at most twice
   * their number, plus a few) right after a spike, not when the map grows again.
   */
  tenant(name: string, weights: ReadonlyMap<string, number>): TenantQueue {
    let queue = this.tenants.get(name);
    if (queue === undefined) {
      queue = new TenantQueue(name, weights.get(name) ?? 1);
      this.tenants.set(name, queue);
    } else if (queue.idle) {
      this.#idle--;
    }
    return queue;
  }

  /** `queue` may have gone idle (nothing waiting, nothing running): count it, and sweep when due. */
  settled(queue: TenantQueue): void {
    if (!queue.idle) return;
    this.#idle++;
    if (this.#idle > KEEP_IDLE && 2 * this.#idle > this.tenants.size) this.#sweep();
  }

  #sweep(): void {
    for (const [name, queue] of this.tenants) if (queue.idle) this.tenants.delete(name);
    this.#idle = 0;
  }

  push(ticket: Linked, queue: TenantQueue): void {
    if (ticket.retry) queue.pushFront(ticket);
    else queue.pushBack(ticket);
    if (this.#ages !== null) this.#ages.push(ticket, this.queued);
    this.queued++;
    if (!queue.inRing && !queue.parked) this.#join(queue);
  }

  /**
   * A preempted ticket waits again: first in its tenant's queue and first in the aging order (it arrived
   * before what waits behind it, as a rule), so its original arrival time keeps counting.
   */
  pushPreempted(ticket: Linked, queue: TenantQueue): void {
    queue.pushFront(ticket);
    if (this.#ages !== null) this.#ages.pushOldest(ticket);
    this.queued++;
    if (!queue.inRing && !queue.parked) this.#join(queue);
  }

  /** Switches between turns by starts and by tokens, keeping every waiting tenant in the turns. */
  setFairness(byTokens: boolean): void {
    if (byTokens === this.#byTokens) return;
    const waiting = [...this.tenants.values()].filter((queue) => queue.inRing);
    for (const queue of waiting) this.#leave(queue);
    this.#byTokens = byTokens;
    for (const queue of waiting) this.#join(queue);
  }

  /** Takes the tenant out of the turns while it is at its `maxConcurrency` (its tickets stay queued). */
  park(queue: TenantQueue): void {
    queue.parked = true;
    if (queue.inRing) this.#leave(queue);
  }

  /** Puts a parked tenant back in the turns (at the end of the round, or lifted to the smallest counter). */
  unpark(queue: TenantQueue): void {
    queue.parked = false;
    if (queue.size > 0 && !queue.inRing) this.#join(queue);
  }

  /** `fairness: "tokens"`: counts `tokens` (weighted) as served to `queue`'s tenant in this priority. */
  charge(queue: TenantQueue, tokens: number): void {
    if (!this.#byTokens) return;
    queue.counter += tokens / queue.weight;
    if (queue.inRing) {
      this.#heap.remove(queue);
      this.#heap.push(queue);
    }
  }

  /** The ticket the tenant turn would start next. */
  peek(): Linked | null {
    const queue = this.#byTokens ? (this.#heap.peek() ?? null) : this.#cursor;
    return queue === null ? null : queue.head;
  }

  /** Starts the tenant turn's ticket: takes it out and moves the turn on when it is used up. */
  takeNext(): Linked {
    if (this.#byTokens) {
      const first = this.#heap.peek()!;
      this.#floor = first.counter;
      const taken = first.head!;
      this.remove(taken);
      return taken;
    }
    const queue = this.#cursor!;
    const ticket = queue.head!;
    queue.credit -= 1;
    this.remove(ticket);
    if (queue.inRing && queue.credit < 1) this.#arrive(queue.ringNext);
    return ticket;
  }

  /** Takes `ticket`, which waits in this lane, out of its tenant queue (the age order follows); O(1). */
  remove(ticket: Linked): void {
    const queue = ticket.queuedIn as TenantQueue;
    queue.remove(ticket);
    this.queued--;
    if (queue.size === 0) {
      if (queue.inRing) this.#leave(queue);
      this.settled(queue);
    }
  }

  /** Removes and returns every waiting ticket (tenant by tenant, each tenant's in queue order). */
  removeAll(): Linked[] {
    const all: Linked[] = [];
    for (const queue of [...this.tenants.values()]) {
      for (let ticket = queue.head; ticket !== null; ticket = queue.head) {
        this.remove(ticket);
        all.push(ticket);
      }
    }
    this.#ages?.clear();
    return all;
  }

  #join(queue: TenantQueue): void {
    queue.inRing = true;
    queue.credit = 0;
    if (this.#byTokens) {
      // Idle time is not banked: a returning tenant starts level with the least-served active one.
      const least = this.#heap.peek();
      queue.counter = Math.max(queue.counter, least === undefined ? this.#floor : least.counter);
      this.#heap.push(queue);
      return;
    }
    const cursor = this.#cursor;
    if (cursor === null) {
      queue.ringPrev = queue;
      queue.ringNext = queue;
      this.#arrive(queue);
      return;
    }
    // The newcomer's turn comes at the end of the current round: just before the cursor.
    queue.ringNext = cursor;
    queue.ringPrev = cursor.ringPrev;
    cursor.ringPrev.ringNext = queue;
    cursor.ringPrev = queue;
  }

  #leave(queue: TenantQueue): void {
    queue.inRing = false;
    queue.credit = 0;
    if (this.#byTokens) {
      this.#heap.remove(queue);
      return;
    }
    const next = queue.ringNext;
    queue.ringPrev.ringNext = next;
    next.ringPrev = queue.ringPrev;
    queue.ringPrev = queue;
    queue.ringNext = queue;
    if (this.#cursor === queue) {
      this.#cursor = null;
      if (next !== queue) this.#arrive(next);
    }
  }

  /** The turn reaches `queue`: it earns its weight; tenants still short of one start are passed over. */
  #arrive(queue: TenantQueue): void {
    let current = queue;
    current.credit += current.weight;
    while (current.credit < 1) {
      current = current.ringNext;
      current.credit += current.weight;
    }
    this.#cursor = current;
  }
}
