// Part 6: fairness between tenants by tokens served, in virtual time.

import { type FairnessRun, type FairnessTenant, simulateFairness } from "../fairness/simulate.js";
import type { Part } from "../lib/part.js";
import type { Goal } from "../lib/report.js";

const pct = (value: number): string => `${(100 * value).toFixed(1)}%`;

/**
 * The largest gap between `a` and `b`'s tokens served since `baseMs`, relative to the larger, over the
 * samples from `fromMs` on (counting from a baseline leaves out the first slots, which go to whoever
 * asked first while nothing waited).
 */
function worstGap(run: FairnessRun, a: string, b: string, baseMs: number, fromMs: number): number {
  const base = run.samples.find((sample) => sample.at >= baseMs)!.served;
  let worst = 0;
  for (const { at, served } of run.samples) {
    if (at < fromMs) continue;
    const x = served[a]! - base[a]!;
    const y = served[b]! - base[b]!;
    worst = Math.max(worst, Math.abs(x - y) / Math.max(x, y, 1));
  }
  return worst;
}

/** Starts the late tenant waited for after it arrived: how many went to others before its first. */
function startsBeforeLate(run: FairnessRun, late: FairnessTenant): number {
  const after = run.starts.filter((start) => start.at >= late.fromMs);
  const first = after.findIndex((start) => start.tenant === late.name);
  return first === -1 ? Number.POSITIVE_INFINITY : first;
}

/** Each tenant's share of the tokens served in the window after the late tenant arrived. */
function sharesAfter(run: FairnessRun, fromMs: number, names: readonly string[]): Record<string, number> {
  const before = run.samples.find((s) => s.at >= fromMs)!.served;
  const end = run.samples.at(-1)!.served;
  const gained = names.map((name) => end[name]! - before[name]!);
  const total = gained.reduce((sum, value) => sum + value, 0);
  return Object.fromEntries(names.map((name, i) => [name, gained[i]! / Math.max(total, 1)]));
}

export const run: Part = async ({ quick, log }) => {
  const durationMs = quick ? 600_000 : 1_800_000;
  const sampleEveryMs = 10_000;
  const big: FairnessTenant = { name: "long-prompts", promptTokens: 8_000, outputTokens: 100, fromMs: 0 };
  const small: FairnessTenant = { name: "short-prompts", promptTokens: 200, outputTokens: 100, fromMs: 0 };
  const late: FairnessTenant = {
    name: "late",
    promptTokens: 2_000,
    outputTokens: 100,
    fromMs: durationMs / 2,
  };
  const tenants = [big, small, late];
  const byTokens = await simulateFairness("tokens", tenants, durationMs, sampleEveryMs);
  const byRequests = await simulateFairness("requests", tenants, durationMs, sampleEveryMs);
  log(`simulated ${durationMs / 1000} s of virtual time twice`);
  const baseMs = 60_000;
  const fromMs = baseMs + 120_000;
  const gapTokens = worstGap(byTokens, big.name, small.name, baseMs, fromMs);
  const gapRequests = worstGap(byRequests, big.name, small.name, baseMs, fromMs);
  const waitedTokens = startsBeforeLate(byTokens, late);
  const names = tenants.map((t) => t.name);
  const lateShare = sharesAfter(byTokens, late.fromMs + 60_000, names);
  const lateShareRequests = sharesAfter(byRequests, late.fromMs + 60_000, names);
  const final = (r: FairnessRun) => r.samples.at(-1)!.served;
  const goals: Goal[] = [
    {
      name: 'fairness "tokens": the two tenants\' tokens served since the first minute stay within 10% of each other (every 10 s from 3 min)',
      target: "<= 10%",
      measured: `worst gap ${pct(gapTokens)}`,
      holds: gapTokens <= 0.1,
    },
    {
      name: 'fairness "requests": they do not',
      target: "> 10%",
      measured: `worst gap ${pct(gapRequests)}`,
      holds: gapRequests > 0.1,
    },
    {
      name: "a late third tenant gets its first start within one round (one start of each other tenant)",
      target: `<= ${tenants.length - 1} starts`,
      measured: `${waitedTokens} starts`,
      holds: waitedTokens <= tenants.length - 1,
    },
    {
      name: "and then its share: within 10% of a third of the tokens",
      target: "30.0%–36.7%",
      measured: pct(lateShare[late.name]!),
      holds: Math.abs(lateShare[late.name]! - 1 / 3) <= 0.1 / 3,
    },
  ];
  return {
    part: "fairness",
    title: "Fairness between tenants by tokens served, in virtual time",
    method: [
      `The real core on a VirtualClock, maxConcurrency 4, one priority. Tenants ${big.name} (${big.promptTokens}-token prompts) and ${small.name} (${small.promptTokens}-token prompts), both ${big.outputTokens} output tokens, each keep 20 requests waiting from the start; ${late.name} (${late.promptTokens}-token prompts) joins at ${late.fromMs / 1000} s. ${durationMs / 1000} s of virtual time.`,
      "A request holds its slot 20 ms + 0.05 ms per prompt token + 10 ms per output token; it is admitted with `tokens` = prompt + output and reports its usage when it ends, as the adapters do.",
      "Tokens served are weighted as the rule counts them: input + 2 × output, summed at each start and sampled every 10 s. The gap between the first two tenants is taken on what they were served since the 1-minute mark (the first four slots go to whoever asked first, while nothing waited: a fixed head start of at most four requests), at every sample from 3 minutes on.",
    ],
    tables: [
      {
        title: "Weighted tokens served at the end, and the worst gap between the first two tenants",
        columns: [
          "fairness",
          ...names,
          "worst gap (served since 1 min, from 3 min)",
          `${late.name} share after it joined`,
        ],
        rows: [
          [
            "tokens",
            ...names.map((n) => String(final(byTokens)[n])),
            pct(gapTokens),
            pct(lateShare[late.name]!),
          ],
          [
            "requests",
            ...names.map((n) => String(final(byRequests)[n])),
            pct(gapRequests),
            pct(lateShareRequests[late.name]!),
          ],
        ],
      },
    ],
    goals,
    notes: [],
    raw: {
      durationMs,
      gapTokens,
      gapRequests,
      waitedTokens,
      lateShare,
      lateShareRequests,
      final: { tokens: final(byTokens), requests: final(byRequests) },
    },
  };
};
