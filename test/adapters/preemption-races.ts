import { createScheduler } from "@llm-scheduler/core";
import { createRandom, startUpstream } from "@llm-scheduler/upstream-sim";
import type { StartGateway } from "./gateways.js";
import { until } from "./probe.js";

const ROUTE = "/v1/chat/completions";

/** What a batch client that stayed saw. */
export type Outcome = "503" | "full" | "broken";

export interface RaceTally {
  readonly races: number;
  /** Preemptions the scheduler counted. */
  readonly preempted: number;
  /** Clean 503s (`Retry-After`, `x-preempted: 1`, code `PREEMPTED`), before any byte of the stream. */
  readonly answered503: number;
  /** Complete 200 streams, ending with `data: [DONE]`. */
  readonly full: number;
  /** Anything else: a closed connection, a 200 cut short or empty, another status. */
  readonly broken: number;
  /** Interactive requests that did not get their complete answer. */
  readonly chatFailed: number;
}

const completion = (stream: boolean, maxTokens: number): string =>
  JSON.stringify({ messages: [{ role: "user", content: "count" }], stream, max_tokens: maxTokens });

async function outcomeOf(response: Promise<Response>): Promise<Outcome> {
  try {
    const answer = await response;
    const text = await answer.text();
    if (answer.status === 200) return text.endsWith("data: [DONE]\n\n") ? "full" : "broken";
    const clean =
      answer.status === 503 &&
      answer.headers.get("x-preempted") === "1" &&
      answer.headers.get("retry-after") !== null &&
      (JSON.parse(text) as { error?: { code?: string } }).error?.code === "PREEMPTED";
    return clean ? "503" : "broken";
  } catch {
    return "broken";
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Races a streamed batch completion against an interactive one that may preempt it, `races` times in a
 * row through the gateway (one slot, `interactive` preempts `batch`), the interactive request sent at a
 * random moment (seeded) from the batch request's start to past its first token. The upstream (the
 * simulator) sends its headers at once and the first token `ttftMs` later, as vLLM does.
 */
export async function runPreemptionRaces(
  startGateway: StartGateway,
  { races, seed }: { readonly races: number; readonly seed: number },
): Promise<RaceTally> {
  const upstream = await startUpstream({ parallel: 8, ttftMs: 6, tokenMs: 1, prefillMsPerToken: 0 });
  const scheduler = createScheduler({
    maxConcurrency: 1,
    abortGraceMs: 2_000,
    priorities: { interactive: { preempts: ["batch"] }, batch: {} },
  });
  const gateway = await startGateway(scheduler, upstream.url);
  const random = createRandom(seed);
  const tally = { races, preempted: 0, answered503: 0, full: 0, broken: 0, chatFailed: 0 };
  try {
    for (let race = 0; race < races; race++) {
      const post = (priority: string, body: string) =>
        fetch(`${gateway.url}${ROUTE}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-priority": priority },
          body,
        });
      const batch = outcomeOf(post("batch", completion(true, 3)));
      await sleep(random() * 12);
      const chat = outcomeOf(post("interactive", completion(true, 1)));
      const [seen, chatSeen] = await Promise.all([batch, chat]);
      if (seen === "503") tally.answered503++;
      else if (seen === "full") tally.full++;
      else tally.broken++;
      if (chatSeen !== "full") tally.chatFailed++;
      await until(() => scheduler.metrics().running === 0, "the race's slots to be released", 5_000);
    }
    tally.preempted = scheduler.metrics().priorities.batch?.preempted ?? 0;
    return tally;
  } finally {
    await gateway.close();
    await scheduler.close({ timeoutMs: 100 });
    await upstream.close();
  }
}
