import { ErrorCode, SchedulerError } from "@llm-scheduler/core";
import type { Ticket } from "@llm-scheduler/core/kit";

/** Redis knows no such priority: the instances sharing the prefix were configured differently. */
export function unknownPriority(ticket: Ticket, prefix: string): Error {
  return new Error(
    `Priority "${ticket.priority}" is not configured in Redis under "${prefix}": ` +
      "every instance sharing a prefix must configure the same priorities",
  );
}

/** `: <the cause's message>` when it has one, for the messages below. */
const reasonOf = (cause: unknown): string =>
  cause instanceof Error && cause.message !== "" ? ` (${cause.message})` : "";

/** Failing closed, the store dropped a waiting ticket because Redis stayed out of reach. */
export function unavailable(
  ticket: Ticket,
  address: string,
  cause: unknown,
  retryAfterMs: number,
): SchedulerError {
  return new SchedulerError(
    ErrorCode.STORE_UNAVAILABLE,
    `Redis at ${address} cannot be reached${reasonOf(cause)}; the store fails closed and dropped the waiting task`,
    { priority: ticket.priority, retryAfterMs, cause },
  );
}

/**
 * Failing closed, Redis is out of reach: a new task is refused. The message names where Redis is
 * (`host:port`, never a password) and why (`connect ECONNREFUSED …`); `cause` is that error.
 */
export function storeDown(address: string, cause: unknown): SchedulerError {
  return new SchedulerError(
    ErrorCode.STORE_UNAVAILABLE,
    `Redis at ${address} cannot be reached${reasonOf(cause)}; the store fails closed until it is back`,
    cause === null || cause === undefined ? {} : { cause },
  );
}

/** Redis was full when a waiting ticket was sent again (after a restart): its caller hears QUEUE_FULL. */
export function refusedAgain(ticket: Ticket): SchedulerError {
  return new SchedulerError(
    ErrorCode.QUEUE_FULL,
    `The ${ticket.priority} queue in Redis was full when the waiting task was sent again after Redis came back`,
    { priority: ticket.priority },
  );
}

/** Redis may evict the store's keys (which carry no expiry) under memory pressure: told to `onError`. */
export function evicting(policy: string): Error {
  return new Error(
    `Redis's maxmemory-policy is ${policy}: under memory pressure it may evict the store's keys, and ` +
      "the global limit with them. Use noeviction (or a volatile-* policy) for the scheduler's Redis",
  );
}

/** The task's lease lapsed and Redis took its slot back: the task is stopped. */
export function leaseLapsed(ticket: Ticket, leaseMs: number): SchedulerError {
  return new SchedulerError(
    ErrorCode.STORE_UNAVAILABLE,
    `The lease of the task's slot lapsed (no renewal reached Redis within leaseMs, ${leaseMs} ms) ` +
      "and Redis gave the slot back; the task was stopped so that the global limit holds",
    { priority: ticket.priority },
  );
}

/** The lease watchdog stopped the task: no renewal of its lease reached Redis in time. */
export function unrenewed(ticket: Ticket, cause: Error): SchedulerError {
  return new SchedulerError(ErrorCode.STORE_UNAVAILABLE, `${cause.message}; the task was stopped`, {
    priority: ticket.priority,
    cause,
  });
}
