import type { RequestSlot } from "@llm-scheduler/adapter-kit";

/** Express's `res.locals`, or none yet: before Express has seen the request (`scheduled(app)`). */
interface WithLocals {
  locals?: { llmScheduler?: RequestSlot };
}

/**
 * Makes `req.llmScheduler` and `res.locals.llmScheduler` the request's slot: an own property of `req`,
 * which Express keeps when it swaps the prototype and through mounted apps, and a `res.locals` made
 * when there is none yet, which Express keeps too (it makes one only when there is none).
 *
 * @example
 * setRequestSlot(req, res, slot); // req.llmScheduler === res.locals.llmScheduler === slot
 */
export function setRequestSlot(
  req: { llmScheduler?: RequestSlot },
  res: WithLocals,
  slot: RequestSlot,
): void {
  req.llmScheduler = slot;
  res.locals ??= Object.create(null) as NonNullable<WithLocals["locals"]>;
  res.locals.llmScheduler = slot;
}
