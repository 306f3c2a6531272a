// Slot use and batch makespan against the work-conserving ideal, on the simulator's scenarios (virtual time).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  demoScenario,
  formatDuration,
  generateWorkload,
  type MakespanBreakdown,
  makespanVsIdeal,
  type RunResult,
  resolveScenario,
  type Scenario,
  simulate,
} from "@llm-scheduler/simulator";
import { repoRoot } from "../lib/node-child.js";

/** One llm-scheduler run of a scenario, set against that scenario's FIFO run. */
export interface UtilizationRow {
  readonly scenario: string;
  /** What differs from the scenario as shipped: `as shipped`, `reserved 0`. */
  readonly config: string;
  readonly result: RunResult;
  readonly fifo: RunResult;
  readonly ideal: MakespanBreakdown;
}

/** The scenario with chat's `reserved` slots set to `reserved`, everything else as it is. */
function withReserved(scenario: Scenario, reserved: number): Scenario {
  const priorities = scenario.scheduler?.priorities ?? {};
  const interactive = priorities.interactive ?? {};
  return {
    ...scenario,
    scheduler: {
      ...scenario.scheduler,
      priorities: { ...priorities, interactive: { ...interactive, reserved } },
    },
  };
}

/** `examples/scenarios/day.json`; with `quick`, one hour with a twentieth of the batch items. */
function dayScenario(quick: boolean): Scenario {
  const day = JSON.parse(readFileSync(resolve(repoRoot, "examples/scenarios/day.json"), "utf8")) as Scenario;
  if (!quick) return day;
  const tenants = (day.batch?.tenants ?? []).map((tenant) => ({
    ...tenant,
    items: Math.round(tenant.items / 20),
    startMs: Math.round((tenant.startMs ?? 0) / 20),
  }));
  return { ...day, durationMs: 3_600_000, batch: { ...day.batch, tenants } };
}

/** The scenario's shipped `reserved` for chat, and the smaller values down to 0. */
function reserveSteps(scenario: Scenario): number[] {
  const shipped = scenario.scheduler?.priorities?.interactive?.reserved ?? 0;
  return Array.from({ length: shipped + 1 }, (_, i) => shipped - i);
}

async function rowsOf(name: string, base: Scenario): Promise<UtilizationRow[]> {
  const scenario = resolveScenario(base);
  const workload = generateWorkload(scenario);
  const fifo = await simulate(scenario, { gateway: "fifo", workload });
  const shipped = base.scheduler?.priorities?.interactive?.reserved ?? 0;
  const rows: UtilizationRow[] = [];
  for (const reserved of reserveSteps(base)) {
    const variant = resolveScenario(withReserved(base, reserved));
    const result = await simulate(variant, { gateway: "scheduler", workload });
    const config = reserved === shipped ? `as shipped (reserved ${reserved})` : `reserved ${reserved}`;
    rows.push({ scenario: name, config, result, fifo, ideal: makespanVsIdeal(fifo, result) });
  }
  return rows;
}

/**
 * Runs `pnpm demo`'s scenario and `examples/scenarios/day.json` through FIFO and llm-scheduler, as
 * shipped and with fewer reserved chat slots, on the same workload each.
 *
 * @example
 * const rows = await measureUtilization(true);
 */
export async function measureUtilization(quick: boolean): Promise<UtilizationRow[]> {
  const demo = demoScenario({ durationMs: quick ? 5_000 : 15_000 });
  return [...(await rowsOf("demo", demo)), ...(await rowsOf("day", dayScenario(quick)))];
}

const pct = (share: number | undefined): string =>
  share === undefined ? "-" : `${(100 * share).toFixed(2)}%`;
const secs = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** The table's rows: one per run, FIFO's figures beside. */
export function utilizationTable(rows: readonly UtilizationRow[]): string[][] {
  return rows.map(({ scenario, config, result, fifo, ideal }) => {
    const available = result.slots.capacity * result.slots.waitingMs;
    const window = result.slots.capacity * result.batch.makespanMs;
    return [
      `${scenario}, ${config}`,
      secs(result.interactive.waitMs.p95),
      `${formatDuration(result.batch.makespanMs)} (FIFO ${formatDuration(fifo.batch.makespanMs)})`,
      `${(result.batch.makespanMs / fifo.batch.makespanMs).toFixed(2)}x`,
      formatDuration(ideal.idealMs),
      `${ideal.ratio.toFixed(3)}x`,
      pct(result.slots.utilizationWhileWaiting),
      available > 0 ? pct(result.slots.idleReservedMs / available) : "-",
      window > 0 ? pct(result.slots.chatBusyInBatchMs / window) : "-",
    ];
  });
}

export const UTILIZATION_COLUMNS = [
  "run",
  "chat wait p95",
  "batch makespan",
  "vs FIFO",
  "ideal",
  "vs ideal",
  "busy while queued",
  "idle reserved",
  "chat share of batch",
];
