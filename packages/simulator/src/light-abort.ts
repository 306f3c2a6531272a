/**
 * A lightweight `AbortSignal` for simulations. Node's real `AbortSignal` is costly to make and more so
 * to abort, and a run of a day's traffic makes hundreds of thousands, so the virtual-time engine uses
 * this one instead (docs/decisions/0024-simulator-light-abort-signal.md). It is an `EventTarget` with the same instance API (`aborted`, `reason`,
 * `onabort`, `throwIfAborted`, an `abort` event fired once), which is all the scheduler uses. Real
 * network calls (`fetch`) need a real `AbortController`.
 */
export class LightAbortSignal extends EventTarget implements AbortSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((this: AbortSignal, event: Event) => unknown) | null = null;

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
}

/**
 * The controller of a {@link LightAbortSignal}, shaped like `AbortController`.
 *
 * @example
 * const controller = new LightAbortController();
 * scheduler.run(work, { signal: controller.signal });
 * controller.abort(new Error("gave up"));
 */
export class LightAbortController {
  readonly signal = new LightAbortSignal();

  abort(reason?: unknown): void {
    const signal = this.signal;
    if (signal.aborted) return;
    signal.aborted = true;
    signal.reason = reason ?? new DOMException("This operation was aborted", "AbortError");
    const event = new Event("abort");
    signal.onabort?.call(signal, event);
    signal.dispatchEvent(event);
  }
}

/** Makes the controller of one attempt; the driver takes either kind. */
export type ControllerFactory = () => { readonly signal: AbortSignal; abort(reason?: unknown): void };
