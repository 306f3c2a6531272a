import type { ClientSignalSource } from "@llm-scheduler/adapter-kit";
import type { Permit, Scheduler } from "@llm-scheduler/core";

/** How often a request's own timer beats: a queue or run timeout fires at most this late in workerd. */
const BEAT_MS = 250;

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
 * - Objects made for one request (its `AbortSignal`s) cannot be touched from another, so a request must
 *   clean up after itself, in its own context: when workerd aborts the request's signal (the client
 *   left; needs the `enable_request_signal` compatibility flag), a queued task leaves the queue and a
 *   held slot is released at once (workerd cancels the rest of that request's work).
 *
 * @example
 * const line = inWorkerd ? new Lifeline(scheduler, c.req.raw.signal) : undefined;
 * const slot = await acquireSlot(config, c, header, line ?? c.req.raw);
 * line?.hold(slot.permit);
 */
export class Lifeline implements ClientSignalSource {
  readonly #scheduler: Scheduler;
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setInterval>;
  #permit: Permit | undefined;

  constructor(scheduler: Scheduler, request: AbortSignal) {
    this.#scheduler = scheduler;
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

  /** The request was refused a slot: stop the timer. */
  close(): void {
    clearInterval(this.#timer);
  }

  #beat(): void {
    if (this.#permit?.held === false) {
      this.close();
      return;
    }
    try {
      this.#scheduler.rearm();
    } catch {
      // A deadline of a request workerd already cancelled touched that request's objects, which only it
      // may use; the next beat goes on with the rest.
    }
  }

  #clientLeft(reason: unknown): void {
    clearInterval(this.#timer);
    if (this.#permit === undefined) this.#controller.abort(reason);
    else this.#permit.release(reason);
  }
}
