import type { Deadlines } from "./deadlines.js";
import { ErrorCode, SchedulerError } from "./errors.js";
import type { ResolvedOptions } from "./options.js";
import type { Reporter } from "./reporter.js";
import type { RunningTasks } from "./running-tasks.js";
import { isPromise, type Store } from "./store.js";
import { QUEUED, RUNNING, type Task } from "./task.js";

/** What {@link Preemption} shares with the engine that owns it. */
export interface PreemptionHost {
  readonly options: ResolvedOptions;
  readonly store: Store;
  readonly reporter: Reporter;
  readonly deadlines: Deadlines<Task>;
  /** Tasks holding a slot. */
  readonly running: RunningTasks;
  /** True once `close()` began without draining: a preempted task is then answered `CLOSED`, not queued. */
  readonly rejectsQueued: boolean;
  /** Hands a slot back to the store (failures reported). */
  giveBack(task: Task): void;
  /** Takes a task off the books. */
  retire(task: Task): void;
  /** The store failed to take a task back: its caller is answered. */
  storeFailed(task: Task, error: unknown): void;
}

/**
 * Preemption, opt-in per priority (`preempts`, `preemptible`): an arrival of a preempting priority that
 * finds no slot stops one running task of a priority it preempts, and gets that slot when the victim
 * lets go (its function settles, its permit is released, or its abort grace ends), never earlier, so
 * the limit holds while a victim winds down. One victim at a time: arrivals that come meanwhile wait
 * their turn (each gets at most one victim). Victims: the least urgent priority first, then the task
 * that ran the shortest (of equals, the last started), among those whose slot the arrival could take
 * (the store says so by every limit a start checks: a victim of the arrival's own tenant when that
 * tenant is at its `maxConcurrency`, one holding enough tokens when the token budget is spent); never a
 * permit whose response has sent its first byte, never a task already stopped, never one preempted
 * `maxPerTask` times, never one its priority's `reserved` needs. No such victim: nobody is stopped.
 *
 * A preempted `run()` task goes back to the front of its queue with its original arrival time (aging
 * keeps counting) and runs again; its caller sees one settlement. Each run has a generation (how many
 * times the task was preempted before it started), so a late settlement of a preempted run is ignored.
 *
 * A store shared by several instances (one with `releasePreempted`) chooses victims itself, among the
 * tasks of every instance, by the same rules; this instance stops those it is told of (`stopFor`) in
 * the same way, and lets their slots go through the store, which hands each to its arrival.
 */
export class Preemption {
  readonly #host: PreemptionHost;
  /** Preemptions per task, for tasks preempted at least once (dropped when the task retires). */
  readonly #counts = new Map<Task, number>();
  /** Permits whose response has sent its first byte (only while preemption is on). */
  readonly #streaming = new Set<Task>();
  /** The victim that has not let go yet, and the arrival its slot is for. */
  #victim: Task | null = null;
  #arrival: Task | null = null;
  /** Arrivals that came while a victim wound down: each may preempt, in turn. */
  #owed: Task[] = [];
  /** Victims the store chose (see `stopFor`) that have not let go yet. */
  readonly #chosen = new Set<Task>();

  constructor(host: PreemptionHost) {
    this.#host = host;
  }

  /** The run a task is on: how many times it was preempted before. */
  generation(task: Task): number {
    return this.#counts.size === 0 ? 0 : (this.#counts.get(task) ?? 0);
  }

  /** True while `task` is a victim that has not let go of its slot. */
  isWinding(task: Task): boolean {
    return this.#victim === task || (this.#chosen.size !== 0 && this.#chosen.has(task));
  }

  /** A permit's response sent its first byte: it is never preempted from now on. */
  firstByte(task: Task): void {
    if (this.#host.options.preemption === null || task.phase !== RUNNING) return;
    this.#streaming.add(task);
    const { store } = this.#host;
    if (store.spare === undefined) return;
    try {
      this.#settle(store.spare(task));
    } catch (error) {
      this.#host.reporter.error(error);
    }
  }

  /** True when the permit of `priority` should report its first byte (someone could preempt it). */
  preemptible(priority: string): boolean {
    return this.#host.options.preemption?.maxPerTask.has(priority) === true;
  }

  /** A task of some priority was queued and nothing could start for it: preempt if it may. */
  arrived(task: Task): void {
    const preemption = this.#host.options.preemption;
    if (preemption === null || !preemption.preempts.has(task.priority)) return;
    if (this.#host.store.releasePreempted !== undefined) return; // the store chooses, among every instance's tasks
    if (this.#victim !== null) this.#owed.push(task);
    else this.#preemptFor(task);
  }

  /** The task leaves the books: forget it (a victim retired by the store no longer holds a slot). */
  forget(task: Task): void {
    if (this.#counts.size !== 0) this.#counts.delete(task);
    if (this.#chosen.size !== 0) this.#chosen.delete(task);
    if (this.#streaming.size !== 0) this.#streaming.delete(task);
    if (this.#victim === task) {
      // The store took the victim's slot back: its arrival may preempt again, first in line.
      if (this.#arrival !== null) this.#owed.unshift(this.#arrival);
      this.#victim = null;
      this.#arrival = null;
      this.#nextOwed();
    }
  }

  /**
   * A running task let go of its slot (the engine's one release path, after taking it off the running
   * list); false when it is no victim, and the engine frees the slot as usual. A victim's slot goes to
   * its arrival (or the next arrival still waiting), then the victim waits again (a `run()` task whose
   * caller still waits) or retires (a permit, an answered caller, or a scheduler that closes without
   * draining).
   */
  letGo(task: Task): boolean {
    if (this.#chosen.size !== 0 && this.#chosen.delete(task)) {
      this.#letGoThroughStore(task);
      return true;
    }
    if (this.#victim !== task) return false;
    const host = this.#host;
    this.#victim = null;
    host.deadlines.clear(task);
    this.#counts.set(task, (this.#counts.get(task) ?? 0) + 1);
    const arrival = this.#waiting(this.#arrival) ? this.#arrival : this.#takeOwed();
    this.#arrival = null;
    if (arrival === null || !this.#handOver(task, arrival)) host.giveBack(task);
    if (this.#waitsAgain(task)) this.#requeue(task);
    this.#nextOwed();
    return true;
  }

  /**
   * The store chose running `task` as the victim of an arrival of priority `by` (see
   * `StoreHost.preempt`): stop it as any victim, or answer false when it may not be stopped.
   */
  stopFor(task: Task, by: string): boolean {
    if (this.#chosen.has(task)) return true;
    const preemption = this.#host.options.preemption;
    if (task.phase !== RUNNING) return false;
    if (task.aborted) return true; // it lets go within its grace; the store hands that slot over
    const maxPerTask = preemption?.maxPerTask.get(task.priority);
    if (
      maxPerTask === undefined ||
      preemption!.preempts.get(by)?.has(task.priority) !== true ||
      this.#streaming.has(task) ||
      (this.#counts.get(task) ?? 0) >= maxPerTask
    ) {
      return false;
    }
    this.#chosen.add(task);
    this.#stop(task, by);
    return true;
  }

  /**
   * A victim the store chose let go: the same bookkeeping as for one chosen here, and one store call
   * that hands its slot over and, for a `run()` task whose caller still waits, queues it again.
   */
  #letGoThroughStore(task: Task): void {
    const host = this.#host;
    host.deadlines.clear(task);
    this.#counts.set(task, (this.#counts.get(task) ?? 0) + 1);
    const again = this.#waitsAgain(task);
    if (again) this.#queueAgain(task);
    try {
      const result = host.store.releasePreempted!(task, again);
      if (isPromise(result)) {
        result.then(undefined, (error: unknown) => {
          if (again) host.storeFailed(task, error);
          else host.reporter.error(error);
        });
      }
    } catch (error) {
      if (again) host.storeFailed(task, error);
      else host.reporter.error(error);
    }
  }

  /**
   * After a victim let go: true when the task waits again (a `run()` task whose caller still waits, on
   * a scheduler that is not closing without draining); otherwise it was answered and retired.
   */
  #waitsAgain(task: Task): boolean {
    const host = this.#host;
    if (task.fn === null) {
      // A permit cannot run again: its holder answered the PREEMPTED its signal carries (an HTTP 503).
      host.reporter.failed(task, task.run?.signal.reason);
      host.retire(task);
    } else if (task.settled) {
      host.retire(task);
    } else if (host.rejectsQueued) {
      const resolve = task.answer()!;
      const error = new SchedulerError(
        ErrorCode.CLOSED,
        "The scheduler closed before the task could run again",
        {
          id: task.id,
          priority: task.priority,
        },
      );
      host.reporter.failed(task, error);
      resolve(Promise.reject(error));
      host.retire(task);
    } else {
      return true;
    }
    return false;
  }

  /**
   * A preempted task waits again on this instance's books: a fresh queue deadline (or it could time out
   * at once), its old arrival time, a new run context when it starts.
   */
  #queueAgain(task: Task): void {
    const host = this.#host;
    task.run = null; // the next run gets a context and a signal of its own
    task.phase = QUEUED;
    // Into the heap, not its priority's FIFO: the entry of its first wait may still sit there (removal
    // is lazy), and a second entry for it would hold up the deadlines queued in between.
    host.deadlines.set(task, host.options.clock.now() + task.book.queueTimeoutMs);
    host.reporter.queued(task);
  }

  /** A preempted task waits again, in this store's queue too. */
  #requeue(task: Task): void {
    const host = this.#host;
    this.#queueAgain(task);
    try {
      host.store.requeue!(task);
    } catch (error) {
      host.storeFailed(task, error);
    }
  }

  /** True when the store took `from`'s slot back (whether or not `to` got it). */
  #handOver(from: Task, to: Task): boolean {
    try {
      this.#host.store.handOver!(from, to);
      return true;
    } catch (error) {
      this.#host.reporter.error(error);
      return true; // the store has the slot: do not release it twice
    }
  }

  #waiting(task: Task | null): task is Task {
    return task !== null && task.phase === QUEUED && !task.settled;
  }

  #takeOwed(): Task | null {
    while (this.#owed.length > 0) {
      const next = this.#owed.shift()!;
      if (this.#waiting(next)) return next;
    }
    return null;
  }

  /** The next arrival that came meanwhile and still waits may preempt now. */
  #nextOwed(): void {
    while (this.#victim === null) {
      const next = this.#takeOwed();
      if (next === null) return;
      this.#preemptFor(next);
    }
  }

  #preemptFor(arrival: Task): void {
    const victim = this.#choose(arrival);
    if (victim === null) return;
    this.#victim = victim;
    this.#arrival = arrival;
    this.#stop(victim, arrival.priority);
  }

  /** Stops a victim for an arrival of priority `by`: the event, the grace bound, the abort. */
  #stop(victim: Task, by: string): void {
    const host = this.#host;
    const now = host.options.clock.now();
    const runMs = Math.max(0, now - victim.startedAt);
    host.reporter.preempted(victim, by, runMs, (this.#counts.get(victim) ?? 0) + 1);
    // The grace bound first: a holder that lets go inside the abort listener ends it at once.
    host.deadlines.set(victim, now + host.options.abortGraceMs);
    const message = `Preempted by a ${by} task; it runs again later`;
    const about = { id: victim.id, priority: victim.priority, retryAfterMs: 1_000 };
    victim.abort(new SchedulerError(ErrorCode.PREEMPTED, message, about));
  }

  #settle(result: unknown): void {
    if (isPromise(result)) result.then(undefined, (error: unknown) => this.#host.reporter.error(error));
  }

  /** The victim for `arrival`, or `null` when none may be stopped or stopping one would not help it. */
  #choose(arrival: Task): Task | null {
    const { options, running } = this.#host;
    const targets = options.preemption!.preempts.get(arrival.priority)!;
    const load = new Map<string, number>();
    for (const task of running) load.set(task.priority, (load.get(task.priority) ?? 0) + task.cost);
    const own = options.priorityByName.get(arrival.priority)!;
    if ((load.get(own.name) ?? 0) + arrival.cost > own.maxConcurrency) return null;
    let best: Task | null = null;
    let bestIndex = -1;
    for (const task of running) {
      if (!targets.has(task.priority) || !this.#mayStop(task, arrival, load)) continue;
      const index = options.priorityByName.get(task.priority)!.index;
      const better = index > bestIndex || (index === bestIndex && task.startedAt >= best!.startedAt);
      // Asked only of a better candidate, so at most once per running task.
      if (better && this.#makesRoom(arrival, task)) {
        best = task;
        bestIndex = index;
      }
    }
    return best;
  }

  /**
   * True when the arrival would start in `victim`'s slot (the store's answer, by every limit a start
   * checks): stopping a victim whose slot the arrival could not take (its tenant at its
   * `maxConcurrency`, the token budget spent) would only throw work away. A store that cannot tell is
   * trusted; one that throws is reported and answers no.
   */
  #makesRoom(arrival: Task, victim: Task): boolean {
    const { store } = this.#host;
    if (store.canStartAfterFreeing === undefined) return true;
    try {
      return store.canStartAfterFreeing(arrival, victim);
    } catch (error) {
      this.#host.reporter.error(error);
      return false;
    }
  }

  #mayStop(task: Task, arrival: Task, load: ReadonlyMap<string, number>): boolean {
    const { options } = this.#host;
    const priority = options.priorityByName.get(task.priority)!;
    return (
      task.cost >= arrival.cost &&
      !task.aborted &&
      !this.#streaming.has(task) &&
      (this.#counts.get(task) ?? 0) < options.preemption!.maxPerTask.get(task.priority)! &&
      load.get(task.priority)! - task.cost >= priority.reserved
    );
  }
}
