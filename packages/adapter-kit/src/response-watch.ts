import type { Permit } from "@llm-scheduler/core";
import { type NodeWritable, reportFirstByte } from "./first-byte.js";
import { failureForStatus } from "./rejection.js";

/** The part of Node's `http.ServerResponse` that {@link ResponseWatch} uses (Express and Koa hand one over). */
export interface NodeResponseLike {
  readonly statusCode: number;
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
  on(event: "close", listener: () => void): unknown;
  /** Watched for the first byte sent, when someone listens for the scheduler's `firstByte` event. */
  readonly write?: NodeWritable["write"];
  readonly end?: NodeWritable["end"];
}

/** Why a watched request's permit is aborted: the client closed the connection. */
const CLIENT_GONE = "The client closed the connection";

/** No failure given to {@link ResponseWatch.releaseAtEnd}: judge by the status that was sent. */
const BY_STATUS: unique symbol = Symbol("by status");

/**
 * Follows one Node response from the moment a middleware sees it, and holds its permit to the end:
 * - `signal` aborts when the client goes away before the response is complete (pass the watch to
 *   `acquireSlot()` so a queued request leaves at once; the controller is made only when read, so the
 *   fast path pays for no `AbortController`);
 * - `hold(permit)`: from then on, the permit's signal aborts at once when the client goes away, and the
 *   first `write()` or `end()` reports the first byte (`permit.firstByte()`) when someone listens for it;
 * - `releaseAtEnd()`: call it when the handler's work has ended (Koa: downstream settled and the body
 *   stream closed; Express: the handler ended the response). The permit is released once Node has also
 *   closed the response (sent, or the connection dropped), at once if that has already happened. A
 *   client that leaves never frees the slot by itself while the handler may still be talking to the
 *   upstream: the slot is held until its work ends, or the scheduler's `abortGraceMs` has passed.
 *
 * One `close` listener and this object are all a request costs; no closure per callback.
 *
 * @example
 * const watch = new ResponseWatch(res);
 * const slot = await acquireSlot(config, req, nodeHeaderReader(req.headers), watch);
 * watch.hold(slot.permit);
 * watch.releaseAtEnd(); // a 5xx sent counts as failed
 */
export class ResponseWatch {
  readonly #response: NodeResponseLike;
  #controller: AbortController | null = null;
  #ended = false;
  #sent = false;
  #permit: Permit | null = null;
  #failure: unknown = BY_STATUS;
  #releasing = false;

  constructor(response: NodeResponseLike) {
    this.#response = response;
    // Destroyed (the client left, or the response was sent and closed) before the middleware ran: Node
    // has emitted, or is about to emit, `close` without us. A response that finished but is not yet
    // destroyed still emits `close`, so one property read is enough on the common path.
    if (response.destroyed) {
      this.#ended = true;
      this.#sent = response.writableFinished;
      return;
    }
    // Node emits `close` on every response, after `finish` when it was sent (one listener is enough).
    response.on("close", () => this.#end());
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
   * Aborts `permit`'s signal when the client goes away (at once if it already has), and reports its
   * first byte sent when the scheduler has a `firstByte` listener.
   */
  hold(permit: Permit): void {
    this.#permit = permit;
    if (permit.wantsFirstByte) reportFirstByte(this.#response as NodeWritable, permit);
    if (this.#ended && !this.#sent) permit.abort(new Error(CLIENT_GONE));
  }

  /**
   * The handler's work has ended: releases the held permit when the response has ended too (at once if
   * it has), with `failure`, or, when it is `undefined`, as failed if a 5xx was sent. Call {@link hold}
   * first.
   */
  releaseAtEnd(failure: unknown = BY_STATUS): void {
    this.#failure = failure;
    this.#releasing = true;
    if (this.#ended) this.#release();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const sent = this.#response.writableFinished;
    this.#sent = sent;
    if (!sent) {
      this.#controller?.abort(new Error(CLIENT_GONE));
      this.#permit?.abort(new Error(CLIENT_GONE));
    }
    if (this.#releasing) this.#release();
  }

  #release(): void {
    const failure = this.#failure === BY_STATUS ? failureForStatus(this.#response.statusCode) : this.#failure;
    this.#permit?.release(failure);
  }
}
