import type { Ticket } from "@llm-scheduler/core/kit";

/** A ticket for unit tests: priority "a", tenant "t", cost 1, unless `fields` say otherwise. */
export function ticket(seq: number, fields: Partial<Ticket> = {}): Ticket {
  return {
    seq,
    priority: "a",
    tenant: "t",
    cost: 1,
    retry: false,
    enqueuedAt: 0,
    ...fields,
  };
}
