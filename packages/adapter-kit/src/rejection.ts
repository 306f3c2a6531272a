import { errorResponseFor } from "@llm-scheduler/core";

/** A rejection, ready to send: status, headers (JSON content type included) and the serialized body. */
export interface Rejection {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * What every adapter sends for a rejected request: core's status and `Retry-After`/`retry-after-ms`
 * headers, with an OpenAI-style JSON body.
 *
 * @example
 * const { status, headers, body } = rejectionFor(error);
 * res.writeHead(status, headers).end(body);
 */
export function rejectionFor(error: unknown): Rejection {
  const { status, headers, body } = errorResponseFor(error);
  return {
    status,
    headers: { ...headers, "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify(body),
  };
}

/**
 * The failure to release a permit with, from the status that was sent: a 5xx counts as failed in the
 * scheduler's metrics, anything else as completed.
 */
export function failureOf(status: number): Error | undefined {
  return status >= 500 ? new Error(`The response was sent with status ${status}`) : undefined;
}
