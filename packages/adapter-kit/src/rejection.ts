import { errorResponseFor } from "@llm-scheduler/core";
import type { HeaderReader } from "@llm-scheduler/core/kit";
import { redactCredentials } from "./credentials.js";

/** A rejection, ready to send: status, headers (JSON content type included) and the serialized body. */
export interface Rejection {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * What every adapter sends for a rejected request: core's status and `Retry-After`/`retry-after-ms`
 * headers, with an OpenAI-style JSON body. Given the request's headers, any piece of a credential they
 * carry (`authorization`, API keys, cookies) is cut out of the message, so a tenant mapped from a key
 * never comes back in an error body (or the logs that keep it).
 *
 * @example
 * const { status, headers, body } = rejectionFor(error, nodeHeaderReader(req.headers));
 * res.writeHead(status, headers).end(body);
 */
export function rejectionFor(error: unknown, header?: HeaderReader): Rejection {
  const { status, headers, body } = errorResponseFor(error);
  const message = header === undefined ? body.error.message : redactCredentials(body.error.message, header);
  return {
    status,
    headers: { ...headers, "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify({ error: { ...body.error, message } }),
  };
}

/**
 * The failure to release a permit with, from the status that was sent: a 429 or a 5xx counts as failed
 * in the scheduler's metrics, anything else as completed. The error carries the `status`, so that an
 * adaptive limit reads a relayed 503 as the server's overload and a 429 as a rate limit (the tenant's
 * own while other tenants succeed).
 *
 * @example
 * permit.release(failureForStatus(res.statusCode)); // a 502 counts as failed
 */
export function failureForStatus(status: number): (Error & { readonly status: number }) | undefined {
  if (status !== 429 && status < 500) return undefined;
  return Object.assign(new Error(`The response was sent with status ${status}`), { status });
}
