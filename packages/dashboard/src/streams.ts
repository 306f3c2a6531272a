import type { Clock } from "@llm-scheduler/core";
import { openaiError, SAFE_HEADERS } from "./respond.js";

/** What one stream sends each tick. */
export type Frame = () => Promise<unknown>;

/** How one stream is opened. */
export interface StreamOptions {
  /** Whether it counts against the public streams' cap (its request is not an operator's). */
  readonly public: boolean;
  /** Sent once, as `event: history`, before the first snapshot. */
  readonly history?: () => unknown;
}

const encoder = new TextEncoder();
/** Frames queued for a client that does not read, at most. */
const MAX_BUFFERED = 4;

/**
 * One Server-Sent Event: `event: NAME`, one `data:` line of JSON (JSON never holds a raw newline), a blank
 * line.
 *
 * @example
 * sseFrame("snapshot", { running: 1 }); // "event: snapshot\ndata: {\"running\":1}\n\n"
 */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The live streams of one dashboard: at most `max` at once, of which at most `maxPublic` for requests
 * that are not an operator's (so that anonymous viewers never take the last places), each with one
 * timer that sends a snapshot every `intervalMs` and is cleared when the client leaves or the dashboard
 * closes.
 *
 * @example
 * const streams = new Streams(systemClock, 1_000, 16, 8);
 * return streams.open(request, () => buildSnapshot(...), { public: true });
 */
export class Streams {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #max: number;
  readonly #maxPublic: number;
  readonly #closers = new Set<() => void>();
  readonly #public = new Set<() => void>();

  constructor(clock: Clock, intervalMs: number, max: number, maxPublic: number) {
    this.#clock = clock;
    this.#intervalMs = intervalMs;
    this.#max = max;
    this.#maxPublic = maxPublic;
  }

  /** Streams open now. */
  get size(): number {
    return this.#closers.size;
  }

  open(request: Request, frame: Frame, options: StreamOptions): Response {
    const full = this.#closers.size >= this.#max || (options.public && this.#public.size >= this.#maxPublic);
    if (full) {
      const which = options.public ? `${this.#maxPublic} for viewers who are not operators` : `${this.#max}`;
      const message = `Too many live streams (at most ${which}); use ${"`"}api/snapshot${"`"} or retry later`;
      const fields = { message, type: "server_overloaded", code: "too_many_streams" };
      return openaiError(503, fields, { "retry-after": "5" });
    }
    let close = (): void => {};
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        close = this.#run(request, controller, frame, options);
      },
      cancel: () => close(), // the client went away
    });
    return new Response(body, {
      status: 200,
      headers: { ...SAFE_HEADERS, "content-type": "text/event-stream; charset=utf-8" },
    });
  }

  /** Ends every stream (the dashboard is closing). */
  closeAll(): void {
    for (const close of [...this.#closers]) close();
  }

  /** Starts the stream's timer; returns the function that ends it, once. */
  #run(
    request: Request,
    controller: ReadableStreamDefaultController<Uint8Array>,
    frame: Frame,
    options: StreamOptions,
  ): () => void {
    let timer: unknown;
    let open = true;
    const close = (): void => {
      if (!open) return;
      open = false;
      this.#clock.clearTimer(timer);
      this.#closers.delete(close);
      this.#public.delete(close);
      request.signal.removeEventListener("abort", close);
      try {
        controller.close();
      } catch {
        // already closed or cancelled by the client
      }
    };
    const send = async (): Promise<void> => {
      try {
        const data = await frame();
        if (!open) return;
        // A client that stops reading gets no more than a few frames queued; later ones are dropped
        // (each snapshot is complete, so the next one read replaces what was missed).
        if ((controller.desiredSize ?? 1) > -MAX_BUFFERED) {
          controller.enqueue(encoder.encode(sseFrame("snapshot", data)));
        }
      } catch {
        return close(); // the client left (enqueue threw) or reading the scheduler failed
      }
      timer = this.#clock.setTimer(() => void send(), this.#intervalMs);
    };
    this.#closers.add(close);
    if (options.public) this.#public.add(close);
    request.signal.addEventListener("abort", close, { once: true });
    controller.enqueue(encoder.encode(`retry: ${Math.max(this.#intervalMs, 2_000)}\n\n`));
    if (options.history !== undefined)
      controller.enqueue(encoder.encode(sseFrame("history", options.history())));
    void send();
    return close;
  }
}
