import type { HeaderReader } from "@llm-scheduler/core/kit";

/**
 * Request headers that carry credentials; never echoed in an error body.
 *
 * @example
 * const secrets = CREDENTIAL_HEADERS.map((name) => req.headers[name]).filter(Boolean);
 */
export const CREDENTIAL_HEADERS: readonly string[] = [
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "cookie",
];

/** Pieces shorter than this are too common to be worth cutting (and too short to be a secret). */
const SHORTEST = 6;
/** Runs of the characters tokens, keys and cookies are made of. */
const RUN = /[A-Za-z0-9._~+/=-]+/g;

function secretsOf(header: HeaderReader): string[] {
  const secrets: string[] = [];
  for (const name of CREDENTIAL_HEADERS) {
    const value = header(name);
    if (typeof value === "string" && value.length >= SHORTEST) secrets.push(value);
  }
  return secrets;
}

/**
 * `message` with every run of token characters that is part of a credential the request carries
 * (its `authorization`, API key or cookie headers, whole or truncated) replaced by `[redacted]`.
 *
 * @example
 * redactCredentials("got `Bearer eyJhbGciOi…`", header); // "got `Bearer [redacted]…`"
 */
export function redactCredentials(message: string, header: HeaderReader): string {
  const secrets = secretsOf(header);
  if (secrets.length === 0) return message;
  return message.replace(RUN, (run) =>
    run.length >= SHORTEST && secrets.some((secret) => secret.includes(run)) ? "[redacted]" : run,
  );
}
