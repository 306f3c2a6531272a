// What `pnpm bench pools` reads from each simulated run.
import { type RunResult, resolveScenario, type Scenario, simulate } from "@llm-scheduler/simulator";

/** One run of a scenario, with the figures the pool goals need. */
export interface PoolRun {
  readonly label: string;
  readonly result: RunResult;
  /** Mean time to first token of the chat requests, ms (queue wait included). */
  readonly ttftMeanMs: number;
  readonly ttftP95Ms: number;
  /** Chat requests answered per second, from the first sent to the last answered. */
  readonly throughputPerSec: number;
  /** Shared-prefix tokens found in a replica's prefix cache, over all asked (0 without caches). */
  readonly prefixHitRate: number;
}

export async function runPool(label: string, scenario: Scenario): Promise<PoolRun> {
  const result = await simulate(resolveScenario(scenario), { gateway: "scheduler", label });
  const chat = result.tenants.find((tenant) => tenant.kind === "chat");
  const replicas = result.replicas ?? [];
  const asked = replicas.reduce((sum, replica) => sum + replica.prefixTokens, 0);
  const hit = replicas.reduce((sum, replica) => sum + replica.prefixHitTokens, 0);
  return {
    label,
    result,
    ttftMeanMs: result.interactive.ttftMeanMs,
    ttftP95Ms: result.interactive.ttftMs.p95,
    throughputPerSec:
      chat === undefined || chat.completionMs === 0 ? 0 : chat.answered / (chat.completionMs / 1_000),
    prefixHitRate: asked === 0 ? 0 : hit / asked,
  };
}

/** The slow replica's completed requests over the mean of the others'. */
export function slowShare(run: PoolRun): number {
  const replicas = run.result.replicas ?? [];
  const slow = replicas.find((replica) => replica.id === "slow");
  const others = replicas.filter((replica) => replica.id !== "slow");
  const mean = others.reduce((sum, replica) => sum + replica.completed, 0) / Math.max(1, others.length);
  return slow === undefined || mean === 0 ? Number.NaN : slow.completed / mean;
}

/** A tenant's time from its first request to its last one settled, ms. */
export function tenantDoneMs(run: PoolRun, tenant: string): number {
  return run.result.tenants.find((entry) => entry.tenant === tenant)?.completionMs ?? Number.NaN;
}
