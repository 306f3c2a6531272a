import { MAX_ITEMS } from "@llm-scheduler/batches";
import { filled, span } from "./fields.js";
import { type ResolvedBatchJobs, type ScenarioBatchJobs, SECTIONS } from "./scenario.js";
import { invalidField } from "./scenario-error.js";

/**
 * Resolves `batch.jobs` (checked: batches with completion windows) with its defaults; `null` when the
 * scenario has none.
 *
 * @example
 * resolveJobs({ count: 100, ratePerMin: 4 }, "chat").tenants; // ["jobs"]
 */
export function resolveJobs(
  given: ScenarioBatchJobs | undefined,
  chatTenant: string,
): ResolvedBatchJobs | null {
  if (given === undefined) return null;
  const jobs = filled(SECTIONS.JOBS, given);
  const clash = jobs.tenants.indexOf(chatTenant);
  if (clash >= 0) throw invalidField(`batch.jobs.tenants[${clash}]`, "not the chat tenant", chatTenant);
  const items = span(jobs.items);
  if (items.max > MAX_ITEMS) throw invalidField("batch.jobs.items.max", `at most ${MAX_ITEMS}`, items.max);
  return {
    ...jobs,
    items,
    completionWindowMs: span(jobs.completionWindowMs),
    promptTokens: span(jobs.promptTokens),
    maxTokens: span(jobs.maxTokens),
  };
}
