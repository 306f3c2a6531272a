import { ErrorCode, SchedulerError } from "@llm-scheduler/core";
import type { Ticket } from "@llm-scheduler/core/kit";

const reasonOf = (cause: unknown): string =>
  cause instanceof Error && cause.message !== "" ? ` (${cause.message})` : "";

/** A call to the object failed: a new task is refused (the store fails closed). */
export function unreachable(name: string, cause: unknown): SchedulerError {
  return new SchedulerError(
    ErrorCode.STORE_UNAVAILABLE,
    `The scheduler object "${name}" cannot be reached${reasonOf(cause)}; the task was not queued`,
    { cause },
  );
}

/** The object dropped a waiting ticket (nobody asked about it for a lease's length). */
export function droppedWhileWaiting(ticket: Ticket, name: string): SchedulerError {
  return new SchedulerError(
    ErrorCode.STORE_UNAVAILABLE,
    `The scheduler object "${name}" dropped the waiting task: no call about it reached the object in time`,
    { priority: ticket.priority },
  );
}

/** After a restart of the object, a waiting ticket sent again was refused (a queue bound or quota). */
export function refusedAgain(ticket: Ticket, name: string): SchedulerError {
  return new SchedulerError(
    ErrorCode.QUEUE_FULL,
    `The scheduler object "${name}" restarted and refused the waiting task when it was sent again`,
    { priority: ticket.priority },
  );
}

/** The task's lease lapsed and the object took its slot back: the task is stopped. */
export function leaseLapsed(ticket: Ticket, leaseMs: number): SchedulerError {
  return new SchedulerError(
    ErrorCode.STORE_UNAVAILABLE,
    `The lease of the task's slot lapsed (no renewal reached the scheduler object within leaseMs, ${leaseMs} ms) ` +
      "and the object gave the slot back; the task was stopped so that the limit holds",
    { priority: ticket.priority },
  );
}

/** No renewal reached the object for nearly a lease: the task is stopped before its slot can be given away. */
export function unrenewed(ticket: Ticket, leaseMs: number): SchedulerError {
  return new SchedulerError(
    ErrorCode.STORE_UNAVAILABLE,
    `No renewal of the task's slot reached the scheduler object for nearly leaseMs (${leaseMs} ms); ` +
      "the task was stopped before the object could give its slot to another, so that the limit holds",
    { priority: ticket.priority },
  );
}
