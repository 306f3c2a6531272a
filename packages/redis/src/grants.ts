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
  /** Tells Redis that running tickets are not to be victims (see spare.lua), without surfacing its failure. */
  readonly #spare: (ids: readonly string[]) => void;
  /** Seqs delivered by pub/sub since the last drain of the inbox (which then repeats them). */
  #heard = new Set<number>();

  constructor(
    state: StoreState,
    handBack: (ids: readonly string[]) => void,
    spare: (ids: readonly string[]) => void,
  ) {
    this.#state = state;
    this.handBack = handBack;
    this.#spare = spare;
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

  /**
   * A message on this instance's grant channel: comma-separated ticket ids, or, starting with `!`, a
   * preemption: `!<victim id> <the arrival's priority>` (see preempt.lua).
   */
  heard(message: string): void {
    if (message.startsWith("!")) {
      const space = message.indexOf(" ");
      this.victim(message.slice(1, space), message.slice(space + 1));
      return;
    }
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
   * Redis chose one of this instance's running tickets as the victim of an arrival of priority `by`
   * (heard by pub/sub, or from a heartbeat's reply: asking twice changes nothing). The scheduler stops
   * it; one it will not stop (its response streams, it is immune) is spared, and Redis chooses again.
   * A ticket already released, or waiting again, needs nothing: its release handed the slot over.
   */
  victim(id: string, by: string): void {
    const { ledger, host, remote } = this.#state;
    const entry = ledger.get(remote.seqOf(id) ?? -1);
    // a ticket waiting here is one that let go already and waits again: the message is stale
    if (entry === undefined || entry.state !== "granted" || host === null) return;
    const stopped = host.preempt?.(entry.ticket, by) === true;
    if (!stopped && this.#state.up) this.#spare([id]);
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
