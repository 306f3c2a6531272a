/** One request's place on an upstream: where to send it, and what to call once its answer has ended. */
export interface UpstreamLease {
  /** The server's base, without `/v1`. */
  readonly base: string;
  /** Gives the place back; a second call does nothing. */
  release(): void;
}

/**
 * Chooses the server of each request of one model. The scheduler already bounds the model's requests
 * to `maxConcurrency` per server times the servers; a picker spreads them so that no server gets more
 * than its share. Other pickers (prefix affinity, health, engine signals) plug in here.
 */
export interface UpstreamPicker {
  /** The servers it chooses from. */
  readonly upstreams: readonly string[];
  /** A place for one request; always answers (the scheduler has made room). */
  pick(): UpstreamLease;
  /** Requests in flight per server, in the order of `upstreams`. */
  inFlight(): readonly number[];
}

/**
 * The server with the fewest requests in flight (ties: the next one in turn). With the scheduler's
 * limit at `perServer * servers`, every server stays at or under `perServer`. `counts` may be shared
 * with the picker it replaces (a reload), so that places taken before are given back to the same count.
 *
 * @example
 * const picker = new LeastLoaded(["http://10.0.0.5:8000", "http://10.0.0.6:8000"]);
 * const lease = picker.pick(); // fetch(`${lease.base}/v1/chat/completions`), then lease.release()
 */
export class LeastLoaded implements UpstreamPicker {
  readonly upstreams: readonly string[];
  readonly counts: Map<string, number>;
  #turn = 0;

  constructor(upstreams: readonly string[], counts: Map<string, number> = new Map()) {
    this.upstreams = upstreams;
    this.counts = counts;
  }

  pick(): UpstreamLease {
    const { counts, upstreams } = this;
    const n = upstreams.length;
    let best = this.#turn % n;
    let fewest = counts.get(upstreams[best]!) ?? 0;
    for (let step = 1; step < n; step++) {
      const i = (this.#turn + step) % n;
      const count = counts.get(upstreams[i]!) ?? 0;
      if (count < fewest) {
        best = i;
        fewest = count;
      }
    }
    this.#turn = (best + 1) % n;
    const base = upstreams[best]!;
    counts.set(base, fewest + 1);
    let released = false;
    return {
      base,
      release: () => {
        if (released) return;
        released = true;
        counts.set(base, (counts.get(base) ?? 1) - 1);
      },
    };
  }

  inFlight(): readonly number[] {
    return this.upstreams.map((base) => this.counts.get(base) ?? 0);
  }
}
