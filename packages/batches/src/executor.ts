import { invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { Execute, ExecuteContext, ExecuteResult } from "./types.js";

/** Options of {@link openaiExecutor}. */
export interface OpenAIExecutorOptions {
  /** The server's base URL including `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
  readonly baseURL: string;
  /** Sent as `Authorization: Bearer …` to `baseURL` only; never put in an error or a result. */
  readonly apiKey?: string;
  /** Extra headers for every call, or a function of the attempt (e.g. an organisation header). */
  readonly headers?:
    | Readonly<Record<string, string>>
    | ((context: ExecuteContext) => Readonly<Record<string, string>>);
  /** The `fetch` to use. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** The answer to an item whose path could leave `baseURL`: final (a 400), never sent upstream. */
const REFUSED_PATH: ExecuteResult = {
  status: 400,
  body: { error: { message: "The item's url is not a plain path", type: "invalid_request_error" } },
};

/**
 * Whether a path has dot or empty segments, backslashes or encoded separators (it could leave the base
 * path on a server that normalises it).
 */
function leavesBase(path: string): boolean {
  if (!path.startsWith("/") || /[\\?#]|%(?:2e|2f|5c)/i.test(path)) return true;
  return path
    .slice(1)
    .split("/")
    .some((segment) => segment === "" || segment === "." || segment === "..");
}

/**
 * An executor that sends each item to an OpenAI-compatible server with plain `fetch`: the item's
 * `url` is joined to `baseURL` (a leading `/v1` in the item's url is not repeated), its body sent as
 * JSON, and the answer read as JSON (or text). Connection errors reject (the batch layer retries them);
 * their message never contains the key.
 *
 * @example
 * const execute = openaiExecutor({ baseURL: "http://127.0.0.1:8000/v1", apiKey: process.env.OPENAI_API_KEY });
 */
export function openaiExecutor(options: OpenAIExecutorOptions): Execute {
  if (options === null || typeof options !== "object") throw invalidOption("options", "an object", options);
  rejectUnknownKeys("", options, ["baseURL", "apiKey", "headers", "fetch"]);
  let base: URL;
  try {
    base = new URL(options.baseURL);
  } catch {
    throw invalidOption("baseURL", "an absolute http(s) URL", options.baseURL);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:")
    throw invalidOption("baseURL", "an http(s) URL", options.baseURL);
  if (options.apiKey !== undefined && typeof options.apiKey !== "string")
    throw invalidOption("apiKey", "a string", "[hidden]");
  const prefix = base.href.replace(/\/+$/, "");
  const basePath = base.pathname.replace(/\/+$/, "");
  const send = options.fetch ?? globalThis.fetch;
  const authorization = options.apiKey === undefined ? undefined : `Bearer ${options.apiKey}`;
  return async function executeOpenAI(context: ExecuteContext): Promise<ExecuteResult> {
    const { item, signal } = context;
    const path =
      basePath !== "" && item.url.startsWith(`${basePath}/`) ? item.url.slice(basePath.length) : item.url;
    if (leavesBase(path)) return REFUSED_PATH;
    const extra = typeof options.headers === "function" ? options.headers(context) : options.headers;
    const headers: Record<string, string> = { "content-type": "application/json", ...extra };
    if (authorization !== undefined) headers.authorization = authorization;
    let response: Response;
    try {
      response = await send(`${prefix}${path}`, {
        method: item.method,
        headers,
        body: item.method === "GET" || item.method === "DELETE" ? undefined : JSON.stringify(item.body),
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw new Error(`Connection to the upstream failed${cause === undefined ? "" : ` (${cause})`}`);
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, body, headers: Object.fromEntries(response.headers) };
  };
}
