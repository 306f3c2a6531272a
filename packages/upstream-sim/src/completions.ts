import type { IncomingMessage, ServerResponse } from "node:http";
import type { SimContext } from "./context.js";
import { HttpError } from "./errors.js";
import type { ChosenFault } from "./fault-rules.js";
import { faultHeader } from "./faults.js";
import { type GenerationPlan, generate } from "./generate.js";
import { readBody, sendError } from "./http-io.js";
import type { ResponseIdentity } from "./openai-format.js";
import { createRandom, mixSeed } from "./prng.js";
import { type Endpoint, type GenerationRequest, parseGenerationRequest } from "./request-parse.js";
import { createBufferSink, createStreamSink } from "./sinks.js";
import { untilAborted } from "./sleep.js";
import { createFiller } from "./tokens.js";

function retryHeaders(seconds: number): Record<string, string> {
  return { "retry-after": String(Math.ceil(seconds)), "retry-after-ms": String(Math.round(seconds * 1000)) };
}

/**
 * The fault of one attempt: the `x-sim-fault` header (limited to the first attempts by
 * `x-sim-fault-times`), else the first fault rule with attempts left, else a draw from the rates.
 */
function chooseFault(
  context: SimContext,
  request: GenerationRequest,
  req: IncomingMessage,
): ChosenFault | undefined {
  const header = req.headers[faultHeader];
  if (header !== undefined) {
    const kind = context.rules.limitHeader(context.faults.pick(header), request.promptText, req.headers);
    return kind === undefined ? undefined : { kind };
  }
  const ruled = context.rules.pick(request.promptText, req.headers);
  if (ruled !== undefined) return ruled;
  const drawn = context.faults.pick(undefined);
  return drawn === undefined ? undefined : { kind: drawn };
}

/** Throws the answer of a request turned away before it takes a sequence: 429, 500 or a full queue. */
function turnAway(context: SimContext, chosen: ChosenFault | undefined): void {
  const { maxQueued } = context.options;
  const retryAfterSeconds = chosen?.retryAfterSeconds ?? context.options.retryAfterSeconds;
  const fault = chosen?.kind;
  if (fault === "429") {
    throw new HttpError(429, "Rate limit reached (simulated). Please retry after the given delay.", {
      type: "rate_limit_error",
      code: "rate_limit_exceeded",
      headers: retryHeaders(retryAfterSeconds),
    });
  }
  if (fault === "500") {
    throw new HttpError(500, "The server had an error while processing your request (simulated).", {
      type: "server_error",
      code: "internal_error",
    });
  }
  if (!context.slots.hasFree && context.slots.waiting >= maxQueued) {
    throw new HttpError(503, `Server busy: ${maxQueued} requests are already waiting.`, {
      type: "overloaded_error",
      code: "server_busy",
      headers: retryHeaders(retryAfterSeconds),
    });
  }
}

function planFor(
  context: SimContext,
  request: GenerationRequest,
  number: number,
  slow: boolean,
): GenerationPlan {
  const { seed, defaultMaxTokens, slowFactor } = context.options;
  const cached = context.cache.admit(request.promptText, request.promptTokens);
  const textSeed = request.seed === undefined ? mixSeed(seed, 0, number) : mixSeed(seed, 1, request.seed);
  return {
    promptTokens: request.promptTokens,
    prefillTokens: request.promptTokens - cached,
    completionTokens: request.maxTokens ?? defaultMaxTokens,
    finishReason: request.maxTokens === undefined ? "stop" : "length",
    delayFactor: (slow ? slowFactor : 1) * context.speedFactor,
    nextToken: createFiller(createRandom(textSeed)),
  };
}

async function serve(
  context: SimContext,
  request: GenerationRequest,
  plan: GenerationPlan,
  identity: ResponseIdentity,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  const sink = request.stream
    ? createStreamSink(res, identity, { includeUsage: request.includeUsage, promptTokens: plan.promptTokens })
    : createBufferSink(res, identity, plan.promptTokens);
  await generate(plan, context.latency, () => context.slots.active, sink, signal);
  context.stats.status(200);
  context.stats.served(plan.promptTokens, plan.completionTokens);
}

async function admitAndServe(
  context: SimContext,
  endpoint: Endpoint,
  req: IncomingMessage,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  const number = context.nextRequestNumber();
  const request = parseGenerationRequest(endpoint, await readBody(req));
  const chosen = chooseFault(context, request, req);
  const fault = chosen?.kind;
  if (fault !== undefined) context.stats.fault(fault);
  turnAway(context, chosen);
  const acquiring = context.slots.acquire(signal);
  context.stats.observe();
  const release = await acquiring;
  context.stats.observe();
  try {
    if (fault === "hang") {
      await untilAborted(signal);
      signal.throwIfAborted();
    }
    const prefix = endpoint === "chat" ? "chatcmpl" : "cmpl";
    const identity: ResponseIdentity = {
      endpoint,
      id: `${prefix}-sim${number}`,
      created: Math.floor(Date.now() / 1000),
      model: request.model ?? context.options.model,
    };
    await serve(context, request, planFor(context, request, number, fault === "slow"), identity, res, signal);
  } finally {
    release();
  }
}

/**
 * Handles `POST /v1/chat/completions` or `POST /v1/completions`: validates the body, applies the
 * fault, waits in FIFO order for a sequence, then streams or answers the generated text. When the
 * signal aborts (the client went away or the server closes), the request leaves the line or frees its
 * sequence at once.
 *
 * @example
 * await handleCompletion(context, "chat", req, res, controller.signal);
 */
export async function handleCompletion(
  context: SimContext,
  endpoint: Endpoint,
  req: IncomingMessage,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  context.stats.received();
  try {
    await admitAndServe(context, endpoint, req, res, signal);
  } catch (error) {
    if (signal.aborted) {
      context.stats.cancelled();
      return;
    }
    const answer =
      error instanceof HttpError
        ? error
        : new HttpError(500, "Unexpected simulator error", {
            type: "server_error",
            code: "internal_error",
            cause: error,
          });
    context.stats.status(answer.status);
    sendError(res, answer);
  }
}
