import type { Permit } from "@llm-scheduler/core";
import { type NodeWritable, reportFirstByte } from "./first-byte.js";
import { holdHead, type NodeHeadLike } from "./held-head.js";
import { failureForStatus } from "./rejection.js";

/** The part of Node's `http.ServerResponse` that {@link ResponseWatch} uses (Express and Koa hand one over). */
export interface NodeResponseLike {
  readonly statusCode: number;
  readonly writableFinished: boolean;
  /** True once `end()` was called (whether or not the response could then be sent). */
  readonly writableEnded?: boolean;
  readonly destroyed: boolean;
  /**
   * The connection, until Node detaches it once the whole response was handed over (`null` then); read
   * before `writableFinished`, see {@link ResponseWatch}'s `close` handling. Absent on other responses.
   */
  readonly socket?: unknown;
  /** The error the response was destroyed with (Node 18 and later), read by {@link ResponseWatch.endsWithResponse}. */
  readonly errored?: unknown;
  on(event: "close", listener: () => void): unknown;
  /** Watched for the first byte sent, when someone listens for the scheduler's `firstByte` event. */
  readonly write?: NodeWritable["write"];
  readonly end?: NodeWritable["end"];
}

/** Called when a response closes before its handler has ended it (see `ResponseWatch.endsWithResponse`). */
export type StillWorking = (response: NodeResponseLike, watch: ResponseWatch) => void;

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
 *   upstream: the slot is held until its work ends, or the scheduler's `abortGraceMs` has passed;
 * - `endsWithResponse(stillWorking)` instead, when the handler's work ends with its own `end()` (Express):
 *   nothing is wrapped while the response is sent as usual; see the method.
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
  #stillWorking: StillWorking | null = null;

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
   * first byte sent when the scheduler has a `firstByte` listener. With `head` (the request can be
   * preempted or timed out), the status line and headers are held back until the first body byte
   * (`holdHead()`), so that the middleware can still answer 503 or 504 instead until then.
   */
  hold(permit: Permit, head = false): void {
    this.#permit = permit;
    if (head) holdHead(this.#response as unknown as NodeHeadLike, permit);
    else if (permit.wantsFirstByte) reportFirstByte(this.#response as NodeWritable, permit);
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

  /**
   * The handler's work ends with its response (Express: its own `end()`, or `destroy()` with an error).
   * When Node closes the response, the permit is released if `end()` had been called (sent, or ended as
   * the client left; a 5xx sent counts as failed) or the response was destroyed with an error (failed
   * with it). Otherwise the client left while the handler is still at work: `stillWorking(response,
   * watch)` is called to watch for the handler's own end, which must then call {@link releaseAtEnd}. So
   * a response sent as usual costs no wrapper. Pass `null` once the adapter watches the handler's end
   * itself (it sent an answer of its own: the response's end is no longer the handler's). Call
   * {@link hold} first.
   */
  endsWithResponse(stillWorking: StillWorking | null): void {
    this.#stillWorking = stillWorking;
    if (stillWorking !== null && this.#ended) this.#settleWithResponse(stillWorking);
  }

  /** The response has closed: a sent one was ended by the handler; otherwise its state tells. */
  #settleWithResponse(stillWorking: StillWorking): void {
    this.#stillWorking = null;
    const response = this.#response;
    // Each read counts where responses each have a map of their own (Express): none when it was sent.
    if (this.#sent || response.writableEnded === true) {
      this.releaseAtEnd();
      return;
    }
    const { errored } = response;
    if (errored !== null && errored !== undefined) this.releaseAtEnd(errored);
    else stillWorking(response, this);
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const sent = wasSent(this.#response);
    this.#sent = sent;
    if (!sent) {
      this.#controller?.abort(new Error(CLIENT_GONE));
      this.#permit?.abort(new Error(CLIENT_GONE));
    }
    if (this.#releasing) this.#release();
    else if (this.#stillWorking !== null) this.#settleWithResponse(this.#stillWorking);
  }

  #release(): void {
    const failure = this.#failure === BY_STATUS ? failureForStatus(this.#response.statusCode) : this.#failure;
    this.#permit?.release(failure);
  }
}

/**
 * Whether a response that has just closed was sent: `writableFinished`, read only when Node has not
 * detached the socket. Node detaches it (`socket` becomes `null`) only once the response has finished,
 * and emits `close` with it detached only then (a client that leaves closes the response with its socket
 * still attached). The same answer, but `socket` is one own-property read while `writableFinished` is a
 * getter four prototypes up that reads three more properties, each a lookup that misses V8's caches
 * where a response has a hidden class (map) of its own, as behind Express's prototype swap
 * (docs/decisions/0003-release-on-response-close.md).
 */
function wasSent(response: NodeResponseLike): boolean {
  return response.socket === null || response.writableFinished;
}
