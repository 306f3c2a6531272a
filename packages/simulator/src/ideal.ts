import { formatDuration, formatShare } from "./format.js";
import type { RunResult } from "./stats.js";

/** A run's batch makespan set against the work-conserving ideal (see {@link makespanVsIdeal}). */
export interface MakespanBreakdown {
  /** The run's batch makespan, ms. */
  readonly actualMs: number;
  /** The FIFO baseline's batch makespan, ms. */
  readonly fifoMs: number;
  /** The work-conserving ideal, ms: `fifoMs + chatWorkMs`. */
  readonly idealMs: number;
  /** `actualMs / idealMs` (1 when both are 0). */
  readonly ratio: number;
  /**
   * What chat's own work costs the batch, ms: the chat slot-ms this run served within its batch window,
   * less those FIFO served within its own, spread over the capacity (can be below 0 when FIFO served more).
   */
  readonly chatWorkMs: number;
  /** `actualMs - idealMs`: what idle slots, caps and quotas cost the batch beyond chat's own work, ms. */
  readonly lostMs: number;
}

/**
 * The batch makespan a work-conserving gateway would reach, and how far a run is from it.
 *
 * FIFO keeps every slot busy while anything waits, so its batch makespan is what the batch's work (and
 * the chat work FIFO itself served meanwhile) takes on the capacity. A gateway that serves more chat
 * during the batch pays for that work and for nothing else, at best:
 *
 * `ideal = fifo.makespan × fifo.capacity / capacity + (run.chatBusyInBatch - fifo.chatBusyInBatch) / capacity`
 *
 * where `chatBusyInBatch` is the chat slot-ms served between the first batch item sent and the last one
 * settled (each run's own window) and `capacity` is the run's limit: the fixed one, or an adaptive
 * limit's mean over that window (so the ideal is what the slots the run really had could do, not its
 * initial limit). With the same fixed limit, the first term is FIFO's makespan; for the FIFO run itself
 * the ratio is exactly 1. Anything above the ideal is idle slots while work waited (reserved slots kept free,
 * per-priority or per-tenant caps, a token budget) and ordering effects at the end of the batch.
 *
 * @example
 * const { idealMs, ratio } = makespanVsIdeal(fifo, scheduled);
 * console.log(`${scheduled.batch.makespanMs} ms, ${ratio.toFixed(2)}x the ideal ${idealMs} ms`);
 */
export function makespanVsIdeal(fifo: RunResult, run: RunResult): MakespanBreakdown {
  const capacity = run.slots.capacity;
  const chatWorkMs = (run.slots.chatBusyInBatchMs - fifo.slots.chatBusyInBatchMs) / capacity;
  const fifoMs = fifo.batch.makespanMs;
  const idealMs = Math.max(0, (fifoMs * fifo.slots.capacity) / capacity + chatWorkMs);
  const actualMs = run.batch.makespanMs;
  const ratio = idealMs > 0 ? actualMs / idealMs : actualMs > 0 ? Number.POSITIVE_INFINITY : 1;
  return { actualMs, fifoMs, idealMs, ratio, chatWorkMs, lostMs: actualMs - idealMs };
}

/**
 * One sentence that splits a run's batch makespan into FIFO's, chat's own work and the rest, with the
 * slot use while anything waited.
 *
 * @example
 * explainMakespan(fifo, scheduled);
 * // "llm-scheduler: batch makespan 18.6 s = FIFO's 15.1 s + 2.0 s of chat's own work + 1.5 s of idle
 * //  slots and caps (1.08x the work-conserving ideal); slots busy 86.5% while anything waited (idle: 13.5% reserved, 0.0% other)"
 */
export function explainMakespan(fifo: RunResult, run: RunResult): string {
  const { actualMs, fifoMs, chatWorkMs, lostMs, ratio } = makespanVsIdeal(fifo, run);
  const signed = (ms: number) => `${ms < 0 ? "- " : "+ "}${formatDuration(Math.abs(ms))}`;
  const { slots } = run;
  const available = slots.capacity * slots.waitingMs;
  const busy =
    available > 0
      ? `slots busy ${formatShare(slots.utilizationWhileWaiting)} while anything waited (idle: ` +
        `${formatShare(slots.idleReservedMs / available)} reserved, ` +
        `${formatShare((slots.idleWhileWaitingMs - slots.idleReservedMs) / available)} other)`
      : "nothing ever waited";
  return (
    `${run.label}: batch makespan ${formatDuration(actualMs)} = ${fifo.label}'s ${formatDuration(fifoMs)} ` +
    `${signed(chatWorkMs)} of chat's own work ${signed(lostMs)} of idle slots and caps ` +
    `(${ratio.toFixed(2)}x the work-conserving ideal); ${busy}`
  );
}
