/**
 * The base of an OpenAI-compatible server without a trailing `/v1` or slash: `http://h:8000/v1/` and
 * `http://h:8000` both give `http://h:8000`, and the gateway calls `${base}/v1/chat/completions`.
 *
 * @example
 * upstreamBase("http://10.0.0.5:8000/v1"); // "http://10.0.0.5:8000"
 */
export function upstreamBase(url: string): string {
  return url.replace(/\/+$/, "").replace(/\/v1$/, "");
}
