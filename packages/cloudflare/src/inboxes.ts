/**
 * Each client's granted keys not yet told to it, in grant order: the next reply to that client takes
 * them all, so grants reach a client in the order they were made whichever call it makes next.
 */
export class Inboxes {
  readonly #byClient = new Map<string, string[]>();

  /** Adds `key` to `client`'s inbox, once. */
  tell(client: string, key: string): void {
    const inbox = this.#byClient.get(client);
    if (inbox === undefined) this.#byClient.set(client, [key]);
    else if (!inbox.includes(key)) inbox.push(key);
  }

  /** Empties `client`'s inbox and answers what it held. */
  take(client: string): string[] {
    const inbox = this.#byClient.get(client) ?? [];
    this.#byClient.delete(client);
    return inbox;
  }

  /** Takes back a key nobody heard of (its ticket left: a lease lapsed, an isolate died). */
  drop(client: string, key: string): void {
    const inbox = this.#byClient.get(client);
    const at = inbox?.indexOf(key) ?? -1;
    if (at >= 0) inbox!.splice(at, 1);
    if (inbox?.length === 0) this.#byClient.delete(client);
  }

  forget(client: string): void {
    this.#byClient.delete(client);
  }
}
