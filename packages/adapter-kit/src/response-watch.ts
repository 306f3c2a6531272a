/** The part of Node's `http.ServerResponse` that {@link ResponseWatch} uses (Express and Koa hand one over). */
export interface NodeResponseLike {
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
  once(event: "finish" | "close", listener: () => void): unknown;
}

/**
 * Follows one Node response from the moment a middleware sees it: `signal` aborts when the client goes
 * away before the response is complete (pass it to `acquire()` so a queued request leaves at once), and
 * `whenEnded()` runs a callback once, after the response has been sent (`finish`) or the connection has
 * closed (`close`), whichever comes first.
 *
 * @example
 * const watch = new ResponseWatch(res);
 * const slot = await acquireSlot(config, req, header, watch.signal);
 * watch.whenEnded(() => slot.permit.release());
 */
export class ResponseWatch {
  readonly #controller = new AbortController();
  #ended = false;
  #callbacks: Array<() => void> = [];

  constructor(response: NodeResponseLike) {
    if (response.writableFinished || response.destroyed) {
      this.#end(response.writableFinished);
      return;
    }
    response.once("finish", () => this.#end(true));
    response.once("close", () => this.#end(response.writableFinished));
  }

  /** Aborts when the client goes away before the whole response was handed to the operating system. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True once the response has been sent or the connection has closed. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Runs `callback` once the response has ended; at once if it already has. */
  whenEnded(callback: () => void): void {
    if (this.#ended) callback();
    else this.#callbacks.push(callback);
  }

  #end(sent: boolean): void {
    if (this.#ended) return;
    this.#ended = true;
    if (!sent) this.#controller.abort(new Error("The client closed the connection"));
    const callbacks = this.#callbacks;
    this.#callbacks = [];
    for (const callback of callbacks) callback();
  }
}
