import type { Permit } from "@llm-scheduler/core";

/** The part of Node's `http.ServerResponse` that {@link ResponseWatch} uses (Express and Koa hand one over). */
export interface NodeResponseLike {
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
  once(event: "close", listener: () => void): unknown;
}

/** Why a watched request's permit is aborted: the client closed the connection. */
const CLIENT_GONE = "The client closed the connection";

/**
 * Follows one Node response from the moment a middleware sees it: `signal` aborts when the client goes
 * away before the response is complete (pass it to `acquire()` so a queued request leaves at once; it is
 * made only when read, so the fast path pays for no `AbortController`), and `whenEnded()` runs a
 * callback once, when Node closes the response: after it has been sent, or when the connection
 * dropped first.
 *
 * @example
 * const watch = new ResponseWatch(res);
 * const slot = await acquireSlot(config, req, header, () => watch.signal);
 * watch.whenEnded((sent) => slot.permit.release());
 */
export class ResponseWatch {
  #controller: AbortController | null = null;
  #ended = false;
  #sent = false;
  // Most requests register one or two callbacks: no array unless a third comes.
  #first: ((sent: boolean) => void) | null = null;
  #second: ((sent: boolean) => void) | null = null;
  #more: Array<(sent: boolean) => void> | null = null;

  constructor(response: NodeResponseLike) {
    if (response.writableFinished || response.destroyed) {
      this.#end(response.writableFinished);
      return;
    }
    // Node emits `close` on every response, after `finish` when it was sent (one listener is enough).
    response.once("close", () => this.#end(response.writableFinished));
  }

  /** Aborts when the client goes away before the whole response was handed to the operating system. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#ended && !this.#sent) this.#controller.abort(new Error(CLIENT_GONE));
    }
    return this.#controller.signal;
  }

  /** True once the response has been sent or the connection has closed. */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Runs `callback` once the response has ended, with whether it was completely sent (`false`: the
   * client went away first); at once if it already has.
   */
  whenEnded(callback: (sent: boolean) => void): void {
    if (this.#ended) callback(this.#sent);
    else if (this.#first === null) this.#first = callback;
    else if (this.#second === null) this.#second = callback;
    else if (this.#more === null) this.#more = [callback];
    else this.#more.push(callback);
  }

  #end(sent: boolean): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#sent = sent;
    if (!sent) this.#controller?.abort(new Error(CLIENT_GONE));
    const first = this.#first;
    const second = this.#second;
    const more = this.#more;
    this.#first = this.#second = this.#more = null;
    first?.(sent);
    second?.(sent);
    if (more !== null) for (const callback of more) callback(sent);
  }
}

/**
 * Aborts the permit's signal as soon as the client goes away, so a handler still talking to the
 * upstream stops (the slot itself is freed separately, see {@link releaseWhenEnded}).
 */
export function abortWhenGone(watch: ResponseWatch, permit: Permit): void {
  watch.whenEnded((sent) => {
    if (!sent) permit.abort(new Error(CLIENT_GONE));
  });
}

/**
 * Frees a request's permit when its response has ended; if the client went away first, the permit's
 * signal is aborted too (a no-op when {@link abortWhenGone} already did).
 */
export function releaseWhenEnded(watch: ResponseWatch, permit: Permit, failure: () => unknown): void {
  watch.whenEnded((sent) => {
    if (!sent) permit.abort(new Error(CLIENT_GONE));
    permit.release(failure());
  });
}
