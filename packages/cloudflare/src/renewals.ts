/**
 * When the isolate's running slots are renewed, and until when the object surely holds them. All
 * running slots of an isolate are renewed together, by whichever call goes first.
 */
export class Renewals {
  /** A dedicated renewal goes out this often (a third of the lease). */
  readonly everyMs: number;
  readonly #leaseMs: number;
  #sentAt = 0;
  /** When the last renewal that the object answered was sent: each lease runs at least `leaseMs` from it. */
  #confirmedAt = 0;

  constructor(leaseMs: number) {
    this.#leaseMs = leaseMs;
    this.everyMs = leaseMs / 3;
  }

  /** Whether a call going out now should carry the renewals (half an interval since the last). */
  ride(now: number): boolean {
    return now - this.#sentAt >= this.everyMs / 2;
  }

  /** Whether a call of its own is due for them. */
  due(now: number): boolean {
    return now - this.#sentAt >= this.everyMs * 0.9;
  }

  sent(at: number): void {
    this.#sentAt = at;
  }

  /** The object answered the renewals sent at `at`. */
  confirmed(at: number): void {
    this.#confirmedAt = Math.max(this.#confirmedAt, at);
  }

  /**
   * A slot its isolate holds since `since` (the send time of the call that brought its grant) must be
   * let go by this time unless a renewal is confirmed: half an interval before the object may give it
   * to another, so that the limit holds even while the object cannot be reached.
   */
  deadline(since: number): number {
    return Math.max(since, this.#confirmedAt) + this.#leaseMs - this.everyMs / 2;
  }
}
