import type { LoadSnapshot, Recorder, Workload } from "@llm-scheduler/simulator";

const sum = (counts: Readonly<Record<string, number>>): number =>
  Object.values(counts).reduce((total, n) => total + n, 0);

/**
 * One line of live progress for a phase.
 *
 * @example
 * progressLine("FIFO", recorder, workload, gateway.snapshot());
 * // "[FIFO]    7.2 s | chat 21 answered, 15 gave up (60 so far) | batch 80/260 done | queued 183 | in flight 8"
 */
export function progressLine(
  label: string,
  recorder: Recorder,
  workload: Workload,
  load: LoadSnapshot,
): string {
  let answered = 0;
  let gaveUp = 0;
  let sent = 0;
  for (const record of recorder.records) {
    if (record.spec.kind !== "chat") continue;
    sent++;
    if (record.outcome === "answered") answered++;
    else if (record.outcome === "unanswered") gaveUp++;
  }
  const seconds = (recorder.now() / 1_000).toFixed(1).padStart(5);
  return (
    `[${label}] ${seconds} s | chat ${answered} answered, ${gaveUp} gave up (${sent} so far) | ` +
    `batch ${recorder.settled.batch}/${workload.batchCount} done | queued ${sum(load.queued)} | in flight ${sum(load.running)}`
  );
}
