import type { Reply } from "./replies.js";
import type { StoreState } from "./state.js";

/**
 * Grant delivery: every grant Redis makes to this instance (in a script's reply, by pub/sub, or drained
 * from the inbox by the heartbeat) starts its task exactly once; a grant that nobody here waits for any
 * more (removed, abandoned, already released) is handed back at once.
 */
export class Grants {
  readonly #state: StoreState;
  /** Gives slots back to Redis (a release of the ids), without surfacing its failure. */
  readonly handBack: (ids: readonly string[]) => void;
  /** Seqs delivered by pub/sub since the last drain of the inbox (which then repeats them). */
  #heard = new Set<number>();

  constructor(state: StoreState, handBack: (ids: readonly string[]) => void) {
    this.#state = state;
    this.handBack = handBack;
  }

  /** Takes in a script's counts and delivers the grants it made to this instance. */
  absorb(reply: Reply, skip?: ReadonlySet<number>): void {
    if (reply.counts !== undefined) {
      this.#state.counts = reply.counts;
      this.#state.drain.record(reply.counts.starts, performance.now());
    }
    const orphans: string[] = [];
    for (const id of reply.granted) {
      const seq = this.#state.remote.seqOf(id);
      if (seq !== undefined && skip?.has(seq) !== true && !this.deliver(seq)) orphans.push(id);
    }
    if (orphans.length > 0) this.handBack(orphans);
  }

  /** A heartbeat's reply, whose drained inbox repeats the grants heard by pub/sub since the last one. */
  absorbDrained(reply: Reply): void {
    const heard = this.#heard;
    this.#heard = new Set();
    this.absorb(reply, heard);
  }

  /** A message on this instance's grant channel: comma-separated ticket ids. */
  heard(message: string): void {
    const orphans: string[] = [];
    for (const id of message.split(",")) {
      const seq = this.#state.remote.seqOf(id);
      if (seq === undefined) continue;
      this.#heard.add(seq);
      if (!this.deliver(seq)) orphans.push(id);
    }
    if (orphans.length > 0 && this.#state.up) this.handBack(orphans);
  }

  /**
   * Redis granted one of this instance's tickets: start it, exactly once. False when nobody waits for
   * it any more (removed, abandoned, or already released): the caller hands the slot back.
   */
  deliver(seq: number): boolean {
    const { ledger, host, fallback } = this.#state;
    const entry = ledger.get(seq);
    if (entry === undefined || host === null) return false;
    if (entry.state === "granted") return true;
    // after the watchdog fired, a grant may rest on a lease that lapsed while it travelled
    if (this.#state.leaseExpired) return false;
    fallback?.forget(entry); // it waited in the fallback too
    ledger.start(entry);
    host.grant(entry.ticket);
    return true;
  }
}
