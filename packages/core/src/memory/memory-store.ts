import type {
  EnqueueResult,
  Store,
  StoreConfig,
  StoreHost,
  StoreSnapshot,
  Ticket,
  TokenUsage,
} from "../store.js";
import { fitsAfterFreeing } from "./fit-after-freeing.js";
import { Lane } from "./lane.js";
import type { Linked } from "./links.js";
import { type Choice, pick } from "./picker.js";
import { Room } from "./room.js";
import { TenantBooks, type TenantState } from "./tenant-books.js";
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
  #queued = 0;
  /** Running counts and the fit check. */
  readonly #room = new Room();
  readonly #books = new TenantBooks();
  /** Some priority has a finite `maxWaitMs`: only then does a pick need the time (the aging rule). */
  #aging = false;
  /** Stride scheduling's virtual time: the pass of the last start. */
  #virtualTime = 0;
  #pumping = false;
  /**
   * The one choice the picker fills, reused between picks: a fresh object per pick measured several
   * times slower per start in a long-lived store with full gcs between bursts (an A/B of both builds).
   */
  readonly #pick: Choice = { lane: null, ticket: null, aged: false };

  attach(host: StoreHost, options: StoreConfig): void {
    if (this.#host !== null) throw new Error("A MemoryStore serves one scheduler; create one per scheduler.");
    this.#host = host;
    this.configure(options);
  }

  configure(options: StoreConfig): void {
    this.#options = options;
    this.#lanes = options.priorities.map((config) => {
      const lane = this.#byName.get(config.name) ?? new Lane(config);
      lane.configure(config);
      this.#byName.set(config.name, lane);
      for (const queue of lane.tenants.values()) queue.weight = options.tenantWeights.get(queue.name) ?? 1;
      lane.setFairness(options.fairness === "tokens");
      return lane;
    });
    this.#aging = this.#lanes.some((lane) => Number.isFinite(lane.config.maxWaitMs));
    this.#books.configure(options);
    this.#room.configure(options, this.#lanes, this.#books.limited);
    for (const state of this.#books.values()) this.#setCapped(state);
    this.#pump();
  }

  enqueue(ticket: Ticket): EnqueueResult {
    const lane = this.#lane(ticket.priority);
    const options = this.#options!;
    if (lane.queued >= lane.config.maxQueue || this.#queued >= options.maxQueue) return "full";
    const state = this.#books.get(ticket.tenant, ticket.enqueuedAt);
    const refusal = this.#room.limited ? this.#quotaRefusal(state, ticket) : null;
    if (refusal !== null) {
      state.throttled++;
      this.#books.settled(state);
      return refusal;
    }
    if (this.#grantAtOnce(lane, ticket, state)) return "granted";
    const queue = this.#queueOf(lane, ticket.tenant, state);
    lane.push(ticket as Linked, queue);
    if (state.capped) lane.park(queue);
    if (lane.queued === 1) lane.pass = Math.max(lane.pass, this.#virtualTime);
    this.#queued++;
    state.queued++;
    state.pendingTokens += tokensOf(ticket);
    this.#pump();
    return "queued";
  }

  /** The tenant's own queue bound, then its token bucket; null when both let the ticket in. */
  #quotaRefusal(state: TenantState, ticket: Ticket): EnqueueResult | null {
    if (state.queued >= state.quota.maxQueue) return "tenant-full";
    const waitMs = state.waitForTokens(tokensOf(ticket), ticket.enqueuedAt);
    return waitMs > 0 ? { rateLimited: true, retryAfterMs: waitMs } : null;
  }

  tryGrant(ticket: Ticket): boolean {
    const state = this.#books.get(ticket.tenant, ticket.enqueuedAt);
    const granted =
      (!this.#room.limited || this.#quotaRefusal(state, ticket) === null) &&
      this.#grantAtOnce(this.#lane(ticket.priority), ticket, state);
    if (!granted) this.#books.settled(state);
    return granted;
  }

  /** The tenant's queue in `lane`, taken into use: it waits or runs there from now on. */
  #queueOf(lane: Lane, tenant: string, state: TenantState): TenantQueue {
    const queue = lane.tenant(tenant, this.#options!.tenantWeights);
    queue.state = state;
    return queue;
  }

  /** The fast path: nothing waits and the ticket fits, so it takes its slot without queueing. */
  #grantAtOnce(lane: Lane, ticket: Ticket, state: TenantState): boolean {
    if (this.#queued !== 0 || !this.#room.fitsFor(lane, ticket, state)) return false;
    // Asked and granted in the same moment: the ticket's enqueue time is the start time.
    const queue = this.#queueOf(lane, ticket.tenant, state);
    this.#take(lane, queue, ticket, ticket.enqueuedAt, state);
    lane.charge(queue, chargeOf(ticket));
    this.#checkCap(state);
    return true;
  }

  remove(ticket: Ticket): boolean {
    const lane = this.#byName.get(ticket.priority);
    const queue = lane?.tenants.get(ticket.tenant);
    if (lane === undefined || queue === undefined || !queue.has(ticket as Linked)) return false;
    lane.remove(ticket as Linked);
    this.#queued--;
    this.#unqueued(ticket, queue.state!);
    // A ticket that did not fit may have been blocking its lane; what waits behind it may fit now.
    this.#pump();
    return true;
  }

  release(ticket: Ticket): void {
    const lane = this.#lane(ticket.priority);
    const queue = lane.tenants.get(ticket.tenant)!;
    const { cost } = ticket;
    const tokens = tokensOf(ticket);
    this.#room.free(lane, cost, tokens);
    queue.running -= cost;
    lane.settled(queue);
    const state = queue.state!;
    state.running -= cost;
    state.tokensInFlight -= tokens;
    this.#checkCap(state);
    this.#books.settled(state);
    this.#pump();
  }

  handOver(from: Ticket, to: Ticket): boolean {
    const pumping = this.#pumping;
    this.#pumping = true; // the freed slot is held for `to`, whatever the picker would choose
    try {
      this.release(from);
    } finally {
      this.#pumping = pumping;
    }
    const lane = this.#byName.get(to.priority);
    const queue = lane?.tenants.get(to.tenant);
    const started =
      lane !== undefined && queue?.has(to as Linked) === true && this.#room.fits(lane, to as Linked);
    if (started) this.#start(lane, to as Linked, true, this.#host!.clock.now());
    this.#pump();
    return started;
  }

  canStartAfterFreeing(arrival: Ticket, victim: Ticket): boolean {
    const lane = this.#byName.get(arrival.priority);
    const victimLane = this.#byName.get(victim.priority);
    const state = this.#books.peek(arrival.tenant);
    const victimState = this.#books.peek(victim.tenant);
    if (lane === undefined || victimLane === undefined || state === undefined || victimState === undefined) {
      return false;
    }
    return fitsAfterFreeing(
      this.#options!,
      this.#room,
      { ticket: arrival, lane, state },
      { ticket: victim, lane: victimLane, state: victimState },
    );
  }

  requeue(ticket: Ticket): void {
    const lane = this.#lane(ticket.priority);
    const now = this.#host?.clock.now() ?? 0;
    const state = this.#books.get(ticket.tenant, now);
    const tokens = tokensOf(ticket);
    state.refill(now);
    state.level += tokens; // the preempted start's charge comes back: its next start pays it again
    state.served -= tokens;
    const queue = lane.tenant(ticket.tenant, this.#options!.tenantWeights);
    lane.charge(queue, -chargeOf(ticket));
    lane.pushPreempted(ticket as Linked, queue);
    if (state.capped) lane.park(queue);
    if (lane.queued === 1) lane.pass = Math.max(lane.pass, this.#virtualTime);
    this.#queued++;
    state.queued++;
    state.pendingTokens += tokens;
    this.#pump();
  }

  reportUsage(ticket: Ticket, usage: TokenUsage): void {
    const state = this.#books.peek(ticket.tenant);
    if (state === undefined) return;
    const options = this.#options!;
    const used = usage.inputTokens + usage.outputTokens;
    state.refill(this.#host?.clock.now() ?? 0);
    state.level -= used - tokensOf(ticket);
    const weighted = usage.inputTokens + options.outputTokenWeight * usage.outputTokens;
    state.served += weighted - tokensOf(ticket);
    const lane = this.#byName.get(ticket.priority);
    const queue = lane?.tenants.get(ticket.tenant);
    if (lane !== undefined && queue !== undefined) lane.charge(queue, weighted - chargeOf(ticket));
  }

  removeAll(): Ticket[] {
    const all = this.#lanes.flatMap((lane) => lane.removeAll());
    this.#queued -= all.length;
    for (const ticket of all) this.#unqueued(ticket, this.#books.peek(ticket.tenant)!);
    return all;
  }

  /** A waiting ticket left without starting: its tenant's counts and promised tokens go down. */
  #unqueued(ticket: Ticket, state: TenantState): void {
    state.queued--;
    state.pendingTokens -= tokensOf(ticket);
    this.#books.settled(state);
  }

  /** After a start or a release of the tenant's: see {@link #setCapped}; nothing to do without quotas. */
  #checkCap(state: TenantState): void {
    if (this.#room.limited) this.#setCapped(state);
  }

  /** Parks the tenant's queues in every priority at its `maxConcurrency`, and brings them back below. */
  #setCapped(state: TenantState): void {
    const capped = !state.hasRoom(1);
    if (capped === state.capped) return;
    state.capped = capped;
    for (const lane of this.#lanes) {
      const queue = lane.tenants.get(state.name);
      if (queue === undefined) continue;
      if (capped) lane.park(queue);
      else lane.unpark(queue);
    }
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
          ...this.#quotaFigures(queue.name),
        });
      }
    }
    tenants.sort((a, b) => b.queued + b.running - (a.queued + a.running));
    tenants.length = Math.min(tenants.length, tenantLimit);
    return { running: this.#room.running, queued: this.#queued, priorities, tenants };
  }

  /** The tenant's token figures for `snapshot()` (over all its priorities). */
  #quotaFigures(name: string): Record<string, number> {
    const state = this.#books.peek(name);
    if (state === undefined) return {};
    const figures: Record<string, number> = {
      tokensServed: state.served,
      tokensInFlight: state.tokensInFlight,
      throttled: state.throttled,
    };
    const level = state.refill(this.#host?.clock.now() ?? 0);
    if (Number.isFinite(level)) figures.bucket = Math.floor(level);
    return figures;
  }

  detach(): void {
    this.#host = null;
  }

  #lane(name: string): Lane {
    const lane = this.#byName.get(name);
    if (lane === undefined) throw new Error(`Unknown priority "${name}" reached the store`);
    return lane;
  }

  #take(lane: Lane, queue: TenantQueue, ticket: Ticket, now: number, state: TenantState): void {
    const { cost } = ticket;
    const tokens = tokensOf(ticket);
    lane.lastStartAt = now;
    this.#room.take(lane, cost, tokens);
    queue.running += cost;
    state.running += cost;
    state.tokensInFlight += tokens;
    state.served += tokens;
    if (!this.#room.limited) return; // every bucket is unlimited: its level stays infinite
    state.refill(now);
    state.level -= tokens;
  }

  /** Grants slots while something waits that fits. Re-entrant calls (from a grant) fold into the loop. */
  #pump(): void {
    if (this.#pumping || this.#host === null) return;
    this.#pumping = true;
    try {
      const { clock } = this.#host;
      const choice = this.#pick;
      const room = this.#room;
      while (this.#queued > 0 && room.running < room.maxConcurrency) {
        // Without aging, a pick needs no time: the clock is read for a start only.
        const agingNow = this.#aging ? clock.now() : undefined;
        if (!pick(this.#lanes, agingNow, room, choice)) break;
        this.#start(choice.lane!, choice.ticket!, choice.aged, agingNow ?? clock.now());
      }
    } finally {
      this.#pumping = false;
    }
  }

  #start(lane: Lane, ticket: Linked, aged: boolean, now: number): void {
    const queue = ticket.queuedIn as TenantQueue;
    const state = queue.state!;
    state.queued--;
    state.pendingTokens -= tokensOf(ticket);
    // Count the slot first, so that a tenant left with nothing waiting is not forgotten while it runs.
    this.#take(lane, queue, ticket, now, state);
    if (aged) lane.remove(ticket);
    else lane.takeNext();
    lane.charge(queue, chargeOf(ticket));
    this.#checkCap(state);
    this.#queued--;
    this.#virtualTime = lane.pass;
    lane.pass += 1 / lane.config.weight;
    this.#host!.grant(ticket, now);
  }
}

function tokensOf(ticket: Ticket): number {
  return ticket.tokens ?? 0;
}

/** What a start counts in `fairness: "tokens"`: its estimate, or 1 when it gave none. */
function chargeOf(ticket: Ticket): number {
  return ticket.tokens || 1;
}
