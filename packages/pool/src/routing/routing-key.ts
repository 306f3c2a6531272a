import { object, withDefaults } from "@llm-scheduler/core/kit";
import { ROUTING_KEY_SCHEMA } from "../schema.js";
import { FNV1A_START, fnv1aUpdate, mix32 } from "./hash.js";

/** Options of {@link createRoutingKey}. */
export interface RoutingKeyOptions {
  /**
   * How many characters (UTF-16 code units) of the prompt's beginning are hashed, 16 to 1,000,000.
   * Make it longer than the part that all your system prompts share (a common preamble), or every
   * prompt gets the same key. @default 4096
   */
  readonly prefixChars?: number;
  /** Messages after the leading system messages that belong to the prefix, 0 to 64. @default 1 */
  readonly firstMessages?: number;
  /** Session affinity from the body's `user` field: one key per user. @default true */
  readonly user?: boolean;
  /**
   * Session affinity from this request header (e.g. `x-session-id`), checked before `user`; lower case.
   * @default none
   */
  readonly sessionHeader?: string;
}

/** Request headers as a `Headers` object or Node's plain record. */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Computes a request's routing key from its parsed JSON body (and headers); `undefined` when none. */
export type RoutingKeyFunction = (body: unknown, headers?: HeaderSource) => string | undefined;

const OPTIONS = object(ROUTING_KEY_SCHEMA, { doc: "routing-key options" });
/** The most characters of a session id (header or `user`) that are hashed. */
const SESSION_CHARS = 1024;

const hex = (hash: number): string => hash.toString(16).padStart(8, "0");

function headerValue(headers: HeaderSource | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Readonly<Record<string, string | readonly string[] | undefined>>)[name];
  return typeof value === "string" ? value : Array.isArray(value) ? value[0] : undefined;
}

/** The text of a message's `content`: a string, or the text parts of an array (others by their type). */
function feedContent(state: number, content: unknown, budget: { left: number }): number {
  let hash = state;
  const feed = (text: string): void => {
    const used = Math.min(text.length, budget.left);
    hash = fnv1aUpdate(hash, text, used);
    budget.left -= used;
  };
  if (typeof content === "string") feed(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (budget.left <= 0) break;
      const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
      feed(typeof text === "string" ? text : typeof type === "string" ? `[${type}]` : "");
    }
  }
  return hash;
}

/** The hash of the leading system messages and the next `firstMessages` ones, or `undefined`. */
function prefixHash(messages: readonly unknown[], firstMessages: number, prefixChars: number) {
  const budget = { left: prefixChars };
  let hash = FNV1A_START;
  let others = 0;
  let fed = 0;
  for (const message of messages) {
    if (budget.left <= 0) break;
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (role !== "system" && role !== "developer") {
      if (others >= firstMessages) break;
      others++;
    }
    hash = fnv1aUpdate(hash, typeof role === "string" ? role : "?", 16);
    hash = fnv1aUpdate(hash, "\u0000");
    hash = feedContent(hash, content, budget);
    fed++;
  }
  return fed === 0 ? undefined : mix32(hash);
}

/**
 * Builds the routing-key function for chat completions (and completions): a session key from the
 * configured header or the body's `user` field when present, otherwise a hash of the prompt's prefix
 * (the leading system messages and the first `firstMessages` others, at most `prefixChars` characters;
 * for a completion, the start of `prompt`). Requests that share a system prompt get the same key, so
 * `prefixAffinity()` sends them where that prefix is already cached. Never throws on a body: anything
 * it cannot read gives `undefined` (no affinity).
 *
 * @example
 * const routingKey = createRoutingKey({ sessionHeader: "x-session-id" });
 * routingKey({ messages: [{ role: "system", content: "You are a tax assistant." }, { role: "user", content: "Hi" }] });
 * // "p:3f2a9c1e" (the same for every request with that system prompt and first message)
 */
export function createRoutingKey(options: RoutingKeyOptions = {}): RoutingKeyFunction {
  const resolved = withDefaults(ROUTING_KEY_SCHEMA, OPTIONS.check("", options));
  const prefixChars = resolved.prefixChars!;
  const firstMessages = resolved.firstMessages!;
  const user = resolved.user!;
  const header = resolved.sessionHeader;
  return function routingKey(body, headers) {
    const session = header === undefined ? undefined : headerValue(headers, header);
    if (session !== undefined && session !== "") {
      return `s:${hex(mix32(fnv1aUpdate(FNV1A_START, session, SESSION_CHARS)))}`;
    }
    if (typeof body !== "object" || body === null) return undefined;
    const fields = body as { user?: unknown; messages?: unknown; prompt?: unknown };
    if (user && typeof fields.user === "string" && fields.user !== "") {
      return `u:${hex(mix32(fnv1aUpdate(FNV1A_START, fields.user, SESSION_CHARS)))}`;
    }
    if (Array.isArray(fields.messages)) {
      const hash = prefixHash(fields.messages, firstMessages, prefixChars);
      return hash === undefined ? undefined : `p:${hex(hash)}`;
    }
    if (typeof fields.prompt === "string" && fields.prompt !== "") {
      return `p:${hex(mix32(fnv1aUpdate(FNV1A_START, fields.prompt, prefixChars)))}`;
    }
    return undefined;
  };
}
