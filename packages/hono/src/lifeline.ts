import type { ClientSignalSource } from "@llm-scheduler/adapter-kit";
import type { Permit, Scheduler } from "@llm-scheduler/core";

/** How often a request's own timer beats: a queue or run timeout fires at most this late in workerd. */
const BEAT_MS = 250;
/** A holder whose timer has not beaten for this long was cancelled by workerd with its client. */
const STALE_MS = 3_000;

/**
 * True in Cloudflare's workerd (its documented `navigator.userAgent`), the one runtime that needs a
 * {@link Lifeline}; Node, Bun and Deno pay nothing for it.
 */
export const inWorkerd =
  (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent === "Cloudflare-Workers";

/**
 * One request's hold on the scheduler in workerd, where three things differ from other runtimes:
 *
 * - workerd cancels a request that waits on a promise only another request resolves, unless it has I/O
 *   or a timer of its own pending. A queued request is exactly that (the request that frees a slot
 *   grants it), so it was cancelled and the slot granted to it never came back. The lifeline keeps a
 *   timer of the request's own beating until its slot is released (or it was refused one).
 * - A timer belongs to the request that set it and ends with it, so the scheduler's one deadline timer
 *   was lost when the request that armed it ended, and queue timeouts stopped firing. Each beat re-arms
 *   it (`scheduler.rearm()`) from a live request.
 * - Objects made for one request (its `AbortSignal`s) cannot be touched from another, so a request
 *   cleans up after itself, in its own context: when workerd aborts the request's signal (the client
 *   left; needs the `enable_request_signal` compatibility flag), a queued task leaves the queue and a
 *   held slot is released at once (workerd cancels the rest of that request's work). Without the flag,
 *   workerd cancels the request's code without a word; its timer stops, and the next request that comes
 *   or beats releases the slot of a holder that has not beaten for `STALE_MS`.
 *
 * @example
 * const line = lifelines.open(c.req.raw.signal);
 * const slot = await acquireSlot(config, c, header, line);
 * line.hold(slot.permit);
 */
export class Lifeline implements ClientSignalSource {
  readonly #owner: Lifelines;
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setInterval>;
  #beatAt = Date.now();
  #permit: Permit | undefined;

  constructor(owner: Lifelines, request: AbortSignal) {
    this.#owner = owner;
    this.#timer = setInterval(() => this.#beat(), BEAT_MS);
    request.addEventListener("abort", () => this.#clientLeft(request.reason), { once: true });
  }

  /** Aborts the queued task when the client leaves; read by the scheduler only if the request queues. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The request got its slot: beat until it is released, and release it if the client leaves. */
  hold(permit: Permit): void {
    this.#permit = permit;
  }

  /** The request is over (refused a slot, or its slot released): stop the timer. */
  close(): void {
    this.#owner.forget(this);
    clearInterval(this.#timer);
  }

  /**
   * Called from another request: releases the slot of a holder that stopped beating (workerd cancelled
   * it with its client, without the `enable_request_signal` flag), and forgets a lifeline that is over.
   */
  reap(now: number): void {
    const permit = this.#permit;
    if (permit === undefined) return; // queued: it beats until its turn, when its response tells
    if (permit.held && now - this.#beatAt < STALE_MS) return;
    this.#owner.forget(this); // its timer went with its request
    if (permit.held) permit.release(new Error("workerd cancelled the request"));
  }

  #beat(): void {
    this.#beatAt = Date.now();
    if (this.#permit?.held === false) {
      this.close();
      return;
    }
    this.#owner.beat(this.#beatAt);
  }

  #clientLeft(reason: unknown): void {
    this.close();
    if (this.#permit === undefined) this.#controller.abort(reason);
    else this.#permit.release(reason);
  }
}

/**
 * The lifelines of one middleware's requests in a workerd isolate (see {@link Lifeline}); each beat
 * re-arms the scheduler's timer and reaps the holders that stopped beating.
 *
 * @example
 * const lifelines = inWorkerd ? new Lifelines(scheduler) : undefined;
 * const line = lifelines?.open(c.req.raw.signal);
 */
export class Lifelines {
  readonly #scheduler: Scheduler;
  readonly #live = new Set<Lifeline>();

  constructor(scheduler: Scheduler) {
    this.#scheduler = scheduler;
  }

  /** Starts the lifeline of a request. */
  open(request: AbortSignal): Lifeline {
    const line = new Lifeline(this, request);
    this.#live.add(line);
    this.beat(Date.now());
    return line;
  }

  /** @internal A live request's beat: reap what cancelled requests left, re-arm the scheduler's timer. */
  beat(now: number): void {
    for (const line of this.#live) {
      try {
        line.reap(now);
      } catch {
        // The cancelled request's own objects were in the way; its slot stays until the next beat.
      }
    }
    try {
      this.#scheduler.rearm();
    } catch {
      // A deadline of a request workerd already cancelled touched that request's objects, which only it
      // may use; the next beat goes on with the rest.
    }
  }

  /** @internal */
  forget(line: Lifeline): void {
    this.#live.delete(line);
  }
}
