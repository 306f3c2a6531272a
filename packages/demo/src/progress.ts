import {
  formatDuration,
  formatShare,
  type LoadSnapshot,
  type Recorder,
  type Workload,
} from "@llm-scheduler/simulator";

/**
 * Where a phase stands: what {@link formatProgress} prints.
 *
 * @example
 * runPhase({ ...phase, onProgress: (progress: PhaseProgress) => console.log(progress.etaMs) });
 */
export interface PhaseProgress {
  readonly label: string;
  readonly elapsedMs: number;
  /** Estimated time left, ms; `undefined` until something has finished to estimate from. */
  readonly etaMs: number | undefined;
  readonly chat: { readonly answered: number; readonly gaveUp: number; readonly sent: number };
  readonly batch: { readonly done: number; readonly total: number };
  readonly queued: number;
  readonly inFlight: number;
  /** Busy slot-time over available slot-time so far, while anything waited; `undefined` until something has. */
  readonly busyWhileQueued?: number;
}

const sum = (counts: Readonly<Record<string, number>>): number =>
  Object.values(counts).reduce((total, n) => total + n, 0);

/**
 * Time left: at least until the last request is due to be sent, and at least what the rate of
 * requests settled so far needs for the ones still open.
 */
function estimateLeft(recorder: Recorder, workload: Workload): number | undefined {
  const now = recorder.now();
  const total = workload.requests.length;
  const settled = recorder.settled.chat + recorder.settled.batch;
  if (settled >= total) return 0;
  const untilLastSend = Math.max(0, (workload.requests.at(-1)?.at ?? 0) - now);
  if (settled === 0 || now <= 0) return undefined;
  return Math.max(untilLastSend, (now / settled) * (total - settled));
}

/** The slot use so far while anything waited at the gateway, as a share of `capacity`. */
function busyWhileQueued(recorder: Recorder, capacity: number): number | undefined {
  const slots = recorder.slots(recorder.now());
  const available = capacity * slots.waitingMs;
  return available > 0 && Number.isFinite(available) ? slots.busyWhileWaitingMs / available : undefined;
}

/**
 * Reads where a phase stands from its recorder and its gateway's load.
 *
 * @example
 * formatProgress(phaseProgress("FIFO", recorder, workload, gateway.snapshot()), process.stdout.columns);
 */
export function phaseProgress(
  label: string,
  recorder: Recorder,
  workload: Workload,
  load: LoadSnapshot,
  capacity = Number.POSITIVE_INFINITY,
): PhaseProgress {
  let answered = 0;
  let gaveUp = 0;
  let sent = 0;
  for (const record of recorder.records) {
    if (record.spec.kind !== "chat") continue;
    sent++;
    if (record.outcome === "answered") answered++;
    else if (record.outcome === "unanswered") gaveUp++;
  }
  return {
    label,
    elapsedMs: recorder.now(),
    etaMs: estimateLeft(recorder, workload),
    chat: { answered, gaveUp, sent },
    batch: { done: recorder.settled.batch, total: workload.batchCount },
    queued: sum(load.queued),
    inFlight: sum(load.running),
    busyWhileQueued: busyWhileQueued(recorder, capacity),
  };
}

/** Seconds with one decimal up to ten minutes (a steady width while it counts), then minutes or hours. */
const clock = (ms: number): string => (ms < 600_000 ? `${(ms / 1_000).toFixed(1)} s` : formatDuration(ms));

/** The line's parts, most important first, each in a long and a short form. */
function parts(p: PhaseProgress): [long: string, short: string][] {
  const eta = p.etaMs === undefined ? "?" : p.etaMs === 0 ? "done" : clock(p.etaMs);
  const elapsed = clock(p.elapsedMs);
  return [
    [`[${p.label}] ${elapsed}`, `[${p.label}] ${elapsed}`],
    [`ETA ${eta}`, `ETA ${eta}`],
    [
      `chat ${p.chat.answered} answered, ${p.chat.gaveUp} gave up (${p.chat.sent} so far)`,
      `chat ${p.chat.answered} ok ${p.chat.gaveUp} lost`,
    ],
    [`batch ${p.batch.done}/${p.batch.total} done`, `batch ${p.batch.done}/${p.batch.total}`],
    [`queued ${p.queued}`, `q ${p.queued}`],
    [`in flight ${p.inFlight}`, `run ${p.inFlight}`],
    ...(p.busyWhileQueued === undefined
      ? []
      : [
          [
            `slots busy ${formatShare(p.busyWhileQueued)} while queued`,
            `busy ${formatShare(p.busyWhileQueued)}`,
          ] as [string, string],
        ]),
  ];
}

/**
 * One line of live progress that fits in `columns` (one less, so the cursor never wraps it): long
 * forms when they fit, else short forms, else the least important parts dropped, else cut.
 *
 * @example
 * formatProgress(progress, 120);
 * // "[FIFO] 7.2 s | ETA 14.1 s | chat 21 answered, 15 gave up (60 so far) | batch 80/260 done | queued 183 | in flight 8"
 * formatProgress(progress, 40); // "[FIFO] 7.2 s | ETA 14.1 s | chat 21 ok 15 lost"
 */
export function formatProgress(progress: PhaseProgress, columns = 80): string {
  const width = Math.max(1, Math.floor(Number.isFinite(columns) ? columns : 80) - 1);
  const all = parts(progress);
  const join = (texts: string[]) => texts.join(" | ");
  const long = join(all.map(([text]) => text));
  if (long.length <= width) return long;
  const short = all.map(([, text]) => text);
  for (let count = short.length; count > 1; count--) {
    const line = join(short.slice(0, count));
    if (line.length <= width) return line;
  }
  const first = short[0]!;
  return first.length <= width ? first : `${first.slice(0, width - 1)}…`;
}
