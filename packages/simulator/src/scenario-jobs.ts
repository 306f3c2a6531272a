import { MAX_ITEMS } from "@llm-scheduler/batches";
import { numberAt, objectAt, rangeAt, stringAt } from "./fields.js";
import type { ResolvedBatchJobs } from "./scenario.js";
import { invalidField } from "./scenario-error.js";

const JOB_KEYS = [
  "count",
  "ratePerMin",
  "startMs",
  "tenants",
  "items",
  "completionWindowMs",
  "promptTokens",
  "maxTokens",
];
const DAY = 86_400_000;

/**
 * Validates `batch.jobs` (batches with completion windows) and fills in its defaults; `null` when the
 * scenario has none. Unknown keys are errors, like everywhere in a scenario.
 *
 * @example
 * resolveJobs({ count: 100, ratePerMin: 4 }, "chat").tenants; // ["jobs"]
 */
export function resolveJobs(value: unknown, chatTenant: string): ResolvedBatchJobs | null {
  if (value === undefined) return null;
  const raw = objectAt("batch.jobs", value, JOB_KEYS);
  if (raw.count === undefined)
    throw invalidField("batch.jobs.count", "an integer from 1 to 100000", raw.count);
  if (raw.ratePerMin === undefined) {
    throw invalidField("batch.jobs.ratePerMin", "a number > 0 and <= 100000", raw.ratePerMin);
  }
  const list = raw.tenants ?? ["jobs"];
  if (!Array.isArray(list) || list.length === 0 || list.length > 1_000) {
    throw invalidField("batch.jobs.tenants", "an array of 1 to 1000 tenant names", list);
  }
  const tenants = list.map((name: unknown, i) => stringAt(`batch.jobs.tenants[${i}]`, name, ""));
  const clash = tenants.indexOf(chatTenant);
  if (clash >= 0) throw invalidField(`batch.jobs.tenants[${clash}]`, "not the chat tenant", chatTenant);
  const items = rangeAt("batch.jobs.items", raw.items, { min: 10, max: 100 }, 1);
  if (items.max > MAX_ITEMS) throw invalidField("batch.jobs.items.max", `at most ${MAX_ITEMS}`, items.max);
  return {
    count: numberAt("batch.jobs.count", raw.count, 0, { integer: true, min: 1, max: 100_000 }),
    ratePerMin: numberAt("batch.jobs.ratePerMin", raw.ratePerMin, 0, {
      min: 0,
      exclusive: true,
      max: 100_000,
    }),
    startMs: numberAt("batch.jobs.startMs", raw.startMs, 0, { min: 0, max: 365 * DAY }),
    tenants,
    items,
    completionWindowMs: rangeAt(
      "batch.jobs.completionWindowMs",
      raw.completionWindowMs,
      { min: 300_000, max: 1_800_000 },
      1_000,
    ),
    promptTokens: rangeAt("batch.jobs.promptTokens", raw.promptTokens, { min: 200, max: 800 }),
    maxTokens: rangeAt("batch.jobs.maxTokens", raw.maxTokens, { min: 100, max: 300 }, 1),
  };
}
