/** Options of {@link checkUpstream}. */
export interface UpstreamCheckOptions {
  /** The `model` the demo will ask for; checked against the server's list when it has one. */
  readonly model?: string;
  /** Bearer token sent to the server. */
  readonly key?: string;
  /** How long the server may take to answer `GET /v1/models`, ms. @default 5_000 */
  readonly timeoutMs?: number;
}

/**
 * Why the demo cannot start (the upstream is unreachable, refuses the key, lacks the model) or measured
 * nothing (the upstream answered no request): a one-line message for the person who ran it, without a
 * stack trace or usage text, since the flags themselves were well formed.
 *
 * @example
 * throw new DemoError("cannot reach the upstream at http://127.0.0.1:1");
 */
export class DemoError extends Error {
  readonly code = "DEMO_FAILED";

  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = "DemoError";
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return "no answer in time";
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

async function modelIds(response: Response): Promise<string[] | undefined> {
  try {
    const body = (await response.json()) as { data?: { id?: unknown }[] };
    if (!Array.isArray(body.data)) return undefined;
    return body.data.flatMap((entry) => (typeof entry?.id === "string" ? [entry.id] : []));
  } catch {
    return undefined;
  }
}

/** Ollama lists `llama3.2:latest` and serves it as `llama3.2` too. */
const serves = (ids: readonly string[], model: string): boolean =>
  ids.some((id) => id === model || id === `${model}:latest`);

/**
 * Checks an OpenAI-compatible server before a long run: it answers `GET /v1/models` within the
 * timeout, accepts the key, and lists the model the demo will ask for (when it lists models at all).
 * Throws a {@link DemoError} that says which of these failed.
 *
 * @example
 * await checkUpstream("http://127.0.0.1:11434", { model: "llama3.2" });
 */
export async function checkUpstream(upstream: string, options: UpstreamCheckOptions = {}): Promise<void> {
  const url = new URL("/v1/models", upstream);
  const headers: Record<string, string> =
    options.key === undefined ? {} : { authorization: `Bearer ${options.key}` };
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(options.timeoutMs ?? 5_000) });
  } catch (error) {
    throw new DemoError(
      `cannot reach the upstream at ${upstream} (GET ${url.pathname}: ${reasonOf(error)}); is the server running?`,
      { cause: error },
    );
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    throw new DemoError(
      `the upstream at ${upstream} refused the request (HTTP ${response.status}); set UPSTREAM_API_KEY to a key it accepts`,
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new DemoError(
      `the upstream at ${upstream} answered GET ${url.pathname} with HTTP ${response.status}; is it an OpenAI-compatible server?`,
    );
  }
  const ids = await modelIds(response);
  const model = options.model ?? "sim-model";
  if (ids !== undefined && ids.length > 0 && !serves(ids, model)) {
    throw new DemoError(
      `the upstream at ${upstream} does not list model \`${model}\`; pass --model with one of: ${ids.slice(0, 10).join(", ")}`,
    );
  }
}
