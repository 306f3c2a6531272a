// Two (then three) backlogged tenants with very different prompt sizes, driven through the real core in
// virtual time; tokens served per tenant are sampled as time goes on.
import { createScheduler, VirtualClock } from "@llm-scheduler/core";

/** One tenant's traffic: prompt and output sizes, and when it starts sending. */
export interface FairnessTenant {
  readonly name: string;
  readonly promptTokens: number;
  readonly outputTokens: number;
  readonly fromMs: number;
}

export interface FairnessRun {
  /** Virtual ms between samples. */
  readonly sampleEveryMs: number;
  /** Weighted tokens served (input + 2 × output) per tenant, cumulative, at each sample. */
  readonly samples: ReadonlyArray<{ readonly at: number; readonly served: Readonly<Record<string, number>> }>;
  /** Start order after each tenant's `fromMs`: which tenant each start went to. */
  readonly starts: ReadonlyArray<{ readonly at: number; readonly tenant: string }>;
}

const OUTPUT_WEIGHT = 2;
/** Tasks each tenant keeps waiting, so that every tenant stays backlogged. */
const BACKLOG = 20;
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A slot is held for a time that grows with the tokens: prefill per prompt token, decode per output token. */
function serviceMs(tenant: FairnessTenant): number {
  return 20 + tenant.promptTokens * 0.05 + tenant.outputTokens * 10;
}

/**
 * Runs `tenants` for `durationMs` of virtual time with `fairness`; each task reports its real usage, as
 * the adapters do from the answer's `usage`.
 */
export async function simulateFairness(
  fairness: "requests" | "tokens",
  tenants: readonly FairnessTenant[],
  durationMs: number,
  sampleEveryMs: number,
): Promise<FairnessRun> {
  const clock = new VirtualClock(0);
  const scheduler = createScheduler({
    clock,
    maxConcurrency: 4,
    fairness,
    priorities: { batch: { queueTimeoutMs: 1e9 } },
  });
  const served: Record<string, number> = Object.fromEntries(tenants.map((t) => [t.name, 0]));
  const samples: Array<{ at: number; served: Record<string, number> }> = [];
  const starts: Array<{ at: number; tenant: string }> = [];
  let stopped = false;
  const submit = (tenant: FairnessTenant): void => {
    const tokens = tenant.promptTokens + tenant.outputTokens;
    scheduler
      .run(
        ({ reportUsage }) => {
          starts.push({ at: clock.now(), tenant: tenant.name });
          served[tenant.name]! += tenant.promptTokens + OUTPUT_WEIGHT * tenant.outputTokens;
          return new Promise<void>((resolve) => clock.setTimer(resolve, serviceMs(tenant))).then(() =>
            reportUsage({ inputTokens: tenant.promptTokens, outputTokens: tenant.outputTokens }),
          );
        },
        { tenant: tenant.name, tokens },
      )
      .then(
        () => {
          if (!stopped) submit(tenant);
        },
        () => undefined, // refused by close() at the end of the run
      );
  };
  for (const tenant of tenants) {
    clock.setTimer(() => {
      for (let i = 0; i < BACKLOG; i++) submit(tenant);
    }, tenant.fromMs);
  }
  for (let at = sampleEveryMs; at <= durationMs; at += sampleEveryMs) {
    clock.setTimer(() => samples.push({ at, served: { ...served } }), at);
  }
  while (clock.now() < durationMs) {
    const next = clock.nextTimerAt();
    if (next === undefined) break;
    clock.advanceTo(next);
    await settle();
  }
  stopped = true;
  // Refuse what waits; let what runs finish in virtual time.
  let closed = false;
  const closing = scheduler.close({ drain: false }).then(() => {
    closed = true;
  });
  while (!closed) {
    const next = clock.nextTimerAt();
    if (next !== undefined) clock.advanceTo(next);
    await settle();
  }
  await closing;
  return { sampleEveryMs, samples, starts };
}
