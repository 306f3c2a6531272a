/**
 * Running and queued counts as Redis last reported them (for `metrics()` and `depth()`), and each
 * priority's starts so far across every instance (for the drain rate).
 */
export interface Counts {
  readonly running: number;
  readonly queued: number;
  readonly priorities: Readonly<Record<string, { readonly running: number; readonly queued: number }>>;
  readonly starts: Readonly<Record<string, number>>;
}

export const NO_COUNTS: Counts = { running: 0, queued: 0, priorities: {}, starts: {} };

/** What every script answers: a status, the counts after the call, grants for the caller, and extras. */
export interface Reply {
  readonly status: number;
  /** Undefined when the script stopped early (negative statuses -7, -8, -9). */
  readonly counts: Counts | undefined;
  readonly granted: readonly string[];
  readonly extra: readonly string[];
  /** Instances with a current heartbeat (configure and tick replies only). */
  readonly live?: number | undefined;
  /** Tick replies: `[victim id, the arrival's priority]` when one of the caller's tickets is the victim now. */
  readonly victim?: readonly string[] | undefined;
}

/** Script statuses shared by several scripts (see each script's header). */
export const Status = {
  GRANTED: 1,
  ALREADY_GRANTED: 2,
  QUEUED: 0,
  FULL: -1,
  TENANT_FULL: -2,
  RATE_LIMITED: -3,
  UNKNOWN_PRIORITY: -7,
  UNREGISTERED: -8,
  UNCONFIGURED: -9,
} as const;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function parseCounts(value: unknown): Counts | undefined {
  if (!Array.isArray(value) || value.length < 2) return undefined;
  const priorities: Record<string, { running: number; queued: number }> = {};
  const starts: Record<string, number> = {};
  for (let i = 2; i + 3 < value.length; i += 4) {
    const name = String(value[i]);
    priorities[name] = { running: Number(value[i + 1]), queued: Number(value[i + 2]) };
    starts[name] = Number(value[i + 3]);
  }
  return { running: Number(value[0]), queued: Number(value[1]), priorities, starts };
}

/** Reads a script's reply; throws on a shape no script returns. */
export function parseReply(raw: unknown): Reply {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new Error(`Unexpected reply from a Redis store script: ${JSON.stringify(raw)}`);
  }
  return {
    status: Number(raw[0]),
    counts: parseCounts(raw[1]),
    granted: strings(raw[2]),
    extra: strings(raw[3]),
    live: raw[4] === undefined ? undefined : Number(raw[4]),
    victim: raw[5] === undefined ? undefined : strings(raw[5]),
  };
}

/**
 * Reads an enqueue status as the script wrote it: a number, or for a tenant's bucket that cannot cover
 * the ticket, "-3 <retryAfterMs>".
 *
 * @example
 * enqueueStatus("-3 1250.5"); // { code: -3, retryAfterMs: 1250.5 }
 */
export function enqueueStatus(raw: string): { readonly code: number; readonly retryAfterMs: number } {
  const space = raw.indexOf(" ");
  if (space < 0) return { code: Number(raw), retryAfterMs: 0 };
  return { code: Number(raw.slice(0, space)), retryAfterMs: Number(raw.slice(space + 1)) };
}
