import type { ResolvedOptions, Scheduler } from "@llm-scheduler/core";

/** The answer for each options object seen (`update()` replaces the object, so the answer follows it). */
const answers = new WeakMap<ResolvedOptions, boolean>();

function bucketed(tenant: { readonly tokensPerMinute: number }): boolean {
  return Number.isFinite(tenant.tokensPerMinute);
}

function decide(options: ResolvedOptions): boolean {
  if (options.fairness === "tokens" || Number.isFinite(options.maxTokensInFlight)) return true;
  if (bucketed(options.tenantDefaults)) return true;
  for (const tenant of options.tenantQuotas.values()) if (bucketed(tenant)) return true;
  return false;
}

/**
 * True when the options in force make the scheduler count tokens: `fairness: "tokens"`, a finite
 * `maxTokensInFlight`, or a `tokensPerMinute` bucket (in `tenantDefaults` or for any named tenant).
 * Only then do the adapters estimate a request's tokens from its body and read the answer's `usage`
 * (a `tokens` mapping of the user's own always runs); otherwise neither would change a decision, and
 * every request would pay for both. Decided once per options object (one `WeakMap` look-up a request).
 *
 * @example
 * if (countsTokens(scheduler)) watchNodeUsage(res, (usage) => slot.reportUsage(usage));
 */
export function countsTokens(scheduler: Scheduler): boolean {
  const { options } = scheduler;
  let answer = answers.get(options);
  if (answer === undefined) {
    answer = decide(options);
    answers.set(options, answer);
  }
  return answer;
}

/**
 * True when the answer's `usage` changes a decision: the scheduler counts tokens ({@link countsTokens}),
 * or its limit is adaptive (run time per output token is its latency signal). The adapters read the
 * usage of JSON answers and SSE streams then, so a gateway needs no `reportUsage` call of its own.
 *
 * @example
 * if (readsUsage(scheduler)) watchNodeUsage(res, (usage) => slot.reportUsage(usage));
 */
export function readsUsage(scheduler: Scheduler): boolean {
  return scheduler.options.adaptive !== null || countsTokens(scheduler);
}
