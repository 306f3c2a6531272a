import { rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { checkItem } from "./create-options.js";
import type { BatchItem, BatchItemInput } from "./types.js";

const placeOf = (number: number): string => `line ${number}`;

/**
 * Parses and checks one line of a batch input file, `{ custom_id, method, url, body }`; `number` counts
 * from 1. Throws an `INVALID_OPTION` error whose message starts with `Line <number>:`.
 *
 * @example
 * const item = parseInputLine('{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{}}', 1, new Map(), null);
 */
export function parseInputLine(
  text: string,
  number: number,
  seen: Map<string, number>,
  endpoint: string | null,
): BatchItem {
  const where = `line ${number}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(`Line ${number}: not valid JSON (${(error as Error).message.slice(0, 200)})`);
  }
  try {
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new TypeError("expected a JSON object with custom_id, method, url and body");
    }
    rejectUnknownKeys(where, parsed, ["custom_id", "method", "url", "body"]);
    const line = parsed as Record<string, unknown>;
    // the body comes from JSON.parse: checked as null, kept as parsed (no second copy of a long line)
    const input = { customId: line.custom_id, method: line.method, url: line.url, body: null };
    const item = checkItem(input as BatchItemInput, number, seen, endpoint, where, placeOf);
    return { ...item, body: line.body ?? null };
  } catch (error) {
    const message = (error as Error).message.replaceAll(`\`${where}.customId\``, "`custom_id`");
    throw Object.assign(error as Error, { message: `Line ${number}: ${message}` });
  }
}

/**
 * The field of the line an error of {@link parseInputLine} is about (`custom_id`, `method`, `url`,
 * `body`), or `null` (not JSON, not an object, an unknown key): OpenAI's `param` of a batch error.
 *
 * @example
 * paramOf(new Error("Line 3: Expected `line 3.url` to be …"), 3); // "url"
 */
export function paramOf(error: unknown, number: number): string | null {
  const message = error instanceof Error ? error.message : "";
  if (message.startsWith(`Line ${number}: Duplicate customId`)) return "custom_id";
  const field = new RegExp(`\`(?:line ${number}\\.)?(custom_id|method|url|body)\``).exec(message)?.[1];
  return field ?? null;
}
