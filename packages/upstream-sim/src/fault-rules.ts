import type { Node } from "@llm-scheduler/core";
import {
  type InferShape,
  integer,
  list,
  number,
  object,
  oneOf,
  required,
  text,
  withDefaults,
} from "@llm-scheduler/core/kit";
import { HttpError } from "./errors.js";
import { type FaultKind, faultKinds } from "./fault-kinds.js";

/**
 * The header that names a request across its retries (a batch item's custom id, say).
 *
 * @example
 * await client.chat.completions.create(body, { headers: { [faultKeyHeader]: "q-7" } });
 */
export const faultKeyHeader = "x-sim-fault-key";

/**
 * With `x-sim-fault`: only the first N attempts of the request (by key, else by prompt) get the fault.
 *
 * @example
 * const headers = { "x-sim-fault": "429", [faultTimesHeader]: "2", [faultKeyHeader]: "q-7" };
 */
export const faultTimesHeader = "x-sim-fault-times";

/** One targeted fault, declared once: its type, checks and defaults come from here. */
const RULE = {
  fault: required(oneOf(faultKinds, { doc: "what the matching attempts get" })),
  times: integer(1, 1e9, {
    infinite: true,
    default: 1,
    doc: "how many attempts of each matching request get the fault; `Infinity` for every one",
  }),
  promptIncludes: text({
    default: "",
    doc: 'only requests whose prompt text contains this (chat: every message; completions: the prompt); `""` matches all',
  }),
  key: text({ shownDefault: "any", doc: "only requests whose `x-sim-fault-key` header is exactly this" }),
  retryAfterSeconds: number(0, 86_400, {
    shownDefault: "the server's `retryAfterSeconds`",
    doc: "`Retry-After` of this rule's 429s, in seconds",
  }),
};
const RULE_NODE = object(RULE, { doc: "" });

/**
 * A targeted fault: requests that match get `fault` on their first `times` attempts, then are served
 * normally, the way a real server fails a few tries and then recovers. Attempts are counted per
 * request: by its `x-sim-fault-key` header when it sends one, else by its prompt text.
 *
 * @example
 * // The batch item whose prompt mentions q-7 gets 429 + Retry-After twice, then succeeds.
 * const rule: FaultRule = { fault: "429", times: 2, promptIncludes: "q-7", retryAfterSeconds: 0.05 };
 */
export type FaultRule = InferShape<typeof RULE>;

const RULES = list(RULE_NODE, 0, Number.POSITIVE_INFINITY, {
  shownDefault: "`[]`",
  doc: "targeted faults: the first `times` attempts of matching requests (see Targeted faults)",
});

/** The `faultRules` option: the rules in order, each checked with its index in the path and its defaults filled in. */
export const FAULT_RULES: Node<readonly FaultRule[]> = {
  ...RULES,
  check: (path, value) => RULES.check(path, value).map((rule) => withDefaults(RULE, rule)),
};

/**
 * The fault chosen for one attempt, and the Retry-After it goes out with.
 *
 * @example
 * const chosen: ChosenFault = { kind: "429", retryAfterSeconds: 0.05 };
 */
export interface ChosenFault {
  readonly kind: FaultKind;
  readonly retryAfterSeconds?: number;
}

/** Attempt counts kept per rule; the oldest are forgotten beyond it (tests never get near). */
const MAX_TRACKED = 100_000;

/**
 * Validates fault rules and fills in their defaults; throws `INVALID_OPTION` naming the bad field.
 *
 * @example
 * resolveFaultRules([{ fault: "500", promptIncludes: "item-3" }]); // [{ fault: "500", times: 1, promptIncludes: "item-3" }]
 */
export function resolveFaultRules(rules: readonly FaultRule[] = []): readonly FaultRule[] {
  return FAULT_RULES.check("faultRules", rules);
}

/** Counts attempts per request identity, forgetting the oldest beyond {@link MAX_TRACKED}. */
class AttemptCounter {
  readonly #counts = new Map<string, number>();

  /** This attempt's number for `identity`: 1 for its first. */
  next(identity: string): number {
    const count = (this.#counts.get(identity) ?? 0) + 1;
    this.#counts.delete(identity);
    this.#counts.set(identity, count);
    if (this.#counts.size > MAX_TRACKED) this.#counts.delete(this.#counts.keys().next().value!);
    return count;
  }
}

/** One header value, or `undefined`. */
function headerOf(headers: Readonly<Record<string, string | string[] | undefined>>, name: string) {
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

function timesOf(text: string): number {
  const times = Number(text.trim());
  if (!Number.isInteger(times) || times < 1 || times > 1e9) {
    throw new HttpError(400, `\`${faultTimesHeader}\` must be an integer from 1 to 1e9, got \`${text}\``, {
      code: "invalid_fault",
      param: faultTimesHeader,
    });
  }
  return times;
}

/**
 * Targeted faults: the {@link FaultRule}s of the server, and `x-sim-fault` limited to the first N
 * attempts by `x-sim-fault-times`. Each counts attempts per request (its `x-sim-fault-key`, else its
 * prompt text), so "fail twice, then succeed" holds across a client's retries.
 *
 * @example
 * const rules = new FaultRules([{ fault: "429", times: 2, promptIncludes: "q-7" }]);
 * rules.pick("summarise q-7", req.headers); // { kind: "429" } twice, then undefined
 */
export class FaultRules {
  #rules: readonly FaultRule[] = [];
  #counters: AttemptCounter[] = [];
  readonly #headerCounter = new AttemptCounter();

  constructor(rules: readonly FaultRule[] = []) {
    this.replace(rules);
  }

  /** Replaces the rules and forgets every attempt counted so far. Throws `INVALID_OPTION` on a bad rule. */
  replace(rules: readonly FaultRule[]): void {
    this.#rules = resolveFaultRules(rules);
    this.#counters = this.#rules.map(() => new AttemptCounter());
  }

  /**
   * The fault a header limited by `x-sim-fault-times` still applies to this attempt: `kind` on the
   * first N attempts of the request, then `undefined` (served normally).
   */
  limitHeader(
    kind: FaultKind | undefined,
    prompt: string,
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ): FaultKind | undefined {
    const timesText = headerOf(headers, faultTimesHeader);
    if (timesText === undefined || kind === undefined) return kind;
    const identity = `${kind}|${timesText}|${headerOf(headers, faultKeyHeader) ?? prompt}`;
    return this.#headerCounter.next(identity) <= timesOf(timesText) ? kind : undefined;
  }

  /** The first rule that matches this request and has attempts left for it, or `undefined`. */
  pick(
    prompt: string,
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ): ChosenFault | undefined {
    const key = headerOf(headers, faultKeyHeader);
    for (const [index, rule] of this.#rules.entries()) {
      if (rule.key !== undefined && rule.key !== key) continue;
      if (!prompt.includes(rule.promptIncludes ?? "")) continue;
      if (this.#counters[index]!.next(key ?? prompt) > (rule.times ?? 1)) continue;
      return { kind: rule.fault, retryAfterSeconds: rule.retryAfterSeconds };
    }
    return undefined;
  }
}
