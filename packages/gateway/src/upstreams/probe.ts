/** Asks each server `GET /v1/models` now and then; `/readyz` is true once every model has one that answers. */
export class UpstreamProbe {
  readonly #answering = new Map<string, boolean>();
  #models: ReadonlyMap<string, readonly string[]> = new Map();
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #onChange: (base: string, answering: boolean) => void;

  constructor(onChange: (base: string, answering: boolean) => void) {
    this.#onChange = onChange;
  }

  /** Probes these models' servers every `intervalMs` from now on (and once at once). */
  watch(models: ReadonlyMap<string, readonly string[]>, intervalMs: number): Promise<void> {
    this.#models = models;
    this.stop();
    this.#timer = setInterval(() => void this.probeAll(), intervalMs);
    (this.#timer as { unref?: () => void }).unref?.();
    return this.probeAll();
  }

  /** Probes every server once. */
  async probeAll(): Promise<void> {
    const bases = new Set([...this.#models.values()].flat());
    await Promise.all([...bases].map((base) => this.#probe(base)));
  }

  async #probe(base: string): Promise<void> {
    let answering = false;
    try {
      const answer = await fetch(`${base}/v1/models`, { signal: AbortSignal.timeout(2_000) });
      answering = answer.status < 500;
      await answer.body?.cancel();
    } catch {
      answering = false;
    }
    if (this.#answering.get(base) !== answering) this.#onChange(base, answering);
    this.#answering.set(base, answering);
  }

  /** The models with no server answering (empty: ready). */
  notReady(): readonly string[] {
    return [...this.#models]
      .filter(([, bases]) => !bases.some((b) => this.#answering.get(b) === true))
      .map(([m]) => m);
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
