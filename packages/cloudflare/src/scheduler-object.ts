import { BadMessage, checkMessage } from "./message.js";
import { ObjectQueue } from "./object-queue.js";
import type { ObjectContext } from "./object-storage.js";
import { decode, encode } from "./wire.js";

/**
 * The Durable Object class behind {@link DurableObjectStore}: one instance per scheduler name holds the
 * one queue and the one limit that every isolate's scheduler shares. Export it from your Worker's entry
 * module and bind it (see the package README); the stores talk to it over `fetch`, one POST per call.
 *
 * @example
 * // worker.ts
 * export { SchedulerObject } from "@llm-scheduler/cloudflare";
 * // wrangler.jsonc: "durable_objects": { "bindings": [{ "name": "LLM_SCHEDULER", "class_name": "SchedulerObject" }] }
 */
export class SchedulerObject {
  readonly #queue: ObjectQueue;

  constructor(ctx: ObjectContext, _env?: unknown) {
    this.#queue = new ObjectQueue(ctx.storage);
    void ctx.blockConcurrencyWhile(() => this.#queue.restore());
  }

  async fetch(request: Request): Promise<Response> {
    if (request.method !== "POST") return failure(405, "Only POST calls reach the scheduler object");
    let message: ReturnType<typeof checkMessage>;
    try {
      message = checkMessage(decode(await request.text()));
    } catch (error) {
      const reason =
        error instanceof BadMessage || error instanceof SyntaxError ? error.message : "unreadable body";
      return failure(400, `Not a scheduler object call: ${reason}`);
    }
    const reply = await this.#queue.handle(message);
    return new Response(encode(reply), { headers: { "content-type": "application/json" } });
  }

  alarm(): void {
    this.#queue.alarm();
  }
}

/** An OpenAI-style error body, as every HTTP error of the project has. */
function failure(status: number, message: string): Response {
  const body = { error: { message, type: "invalid_request_error", param: null, code: "INVALID_REQUEST" } };
  return Response.json(body, { status });
}
