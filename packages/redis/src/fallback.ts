import type { ResolvedOptions, ResolvedPriority, Ticket } from "@llm-scheduler/core";

/**
 * The options of the local fallback while Redis is down: the scheduler's options with every limit
 * divided by the number of instances (at least one slot), reserves scaled the same way, and queue
 * bounds capped so that nothing waits locally without bound.
 *
 * @example
 * localOptions(options, 4, 1_000); // maxConcurrency 32 -> 8 per instance
 */
export function localOptions(
  options: ResolvedOptions,
  expectedInstances: number,
  localMaxQueue: number,
): ResolvedOptions {
  const share = (limit: number): number => Math.max(1, Math.floor(limit / expectedInstances));
  const maxConcurrency = share(options.maxConcurrency);
  let reserveLeft = maxConcurrency;
  const priorities = options.priorities.map((priority): ResolvedPriority => {
    const max = Math.min(share(priority.maxConcurrency), maxConcurrency);
    const reserved = Math.min(Math.floor(priority.reserved / expectedInstances), max, reserveLeft);
    reserveLeft -= reserved;
    return {
      ...priority,
      maxConcurrency: max,
      reserved,
      maxQueue: Math.min(priority.maxQueue, localMaxQueue),
    };
  });
  return {
    ...options,
    maxConcurrency,
    maxQueue: Math.min(options.maxQueue, localMaxQueue),
    priorities,
    priorityByName: new Map(priorities.map((priority) => [priority.name, priority])),
  };
}

/** Clears the links a discarded in-memory store left on a ticket, so that another can use them. */
export function scrub(ticket: Ticket): void {
  ticket.prev = null;
  ticket.next = null;
  ticket.olderPrev = null;
  ticket.olderNext = null;
}
