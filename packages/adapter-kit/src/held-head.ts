import type { Permit } from "@llm-scheduler/core";

/**
 * The part of Node's `http.ServerResponse` whose head {@link holdHead} holds back: Express and Koa hand
 * one over, and so does `@hono/node-server` (as `c.env.outgoing`).
 */
export interface NodeHeadLike {
  statusCode: number;
  statusMessage: string;
  readonly headersSent: boolean;
  readonly writableFinished: boolean;
  writeHead(...args: never[]): unknown;
  flushHeaders?(): void;
  write(...args: never[]): unknown;
  end(...args: never[]): unknown;
  destroy(...args: never[]): unknown;
  setHeader(name: string, value: never): unknown;
  appendHeader?(name: string, value: never): unknown;
  removeHeader(name: string): unknown;
  getHeaderNames(): string[];
  once(event: "finish", listener: () => void): unknown;
}

type Method = (this: never, ...args: unknown[]) => unknown;

/** Calls one of the response's own methods, kept aside, on it. */
function call(method: Method, self: object, args: unknown[]): unknown {
  return (method as (...a: unknown[]) => unknown).apply(self, args);
}

/** The head is held back; the first body byte (or `end()`) sends it; the middleware answered instead. */
const HELD = 0;
const SENT = 1;
const ANSWERED = 2;

/** What a held response keeps: where it is, the permit to tell of the first byte, Node's own methods. */
class Head {
  phase: typeof HELD | typeof SENT | typeof ANSWERED = HELD;
  permit: Permit | null;
  readonly writeHead: Method;
  readonly flushHeaders: Method | undefined;
  readonly write: Method;
  readonly end: Method;

  constructor(response: Hooked, permit: Permit) {
    this.permit = permit;
    this.writeHead = response.writeHead;
    this.flushHeaders = response.flushHeaders;
    this.write = response.write;
    this.end = response.end;
  }
}

const HEAD: unique symbol = Symbol("llm-scheduler held head");

type Hooked = NodeHeadLike &
  Record<"writeHead" | "write" | "end" | "destroy", Method> & {
    flushHeaders?: Method;
    [HEAD]?: Head;
  };

/** The first body byte (or `end()`): the head may go, and the permit is past preemption from now on. */
function send(head: Head): void {
  head.phase = SENT;
  const { permit } = head;
  head.permit = null;
  permit?.firstByte();
}

// Shared by every held response (no closure per request); `this` is the response. They stay in place
// once the head has gone, so a wrapper installed later (compression) keeps working.
function heldWriteHead(this: Hooked, ...args: unknown[]): unknown {
  const head = this[HEAD]!;
  if (head.phase === SENT) return call(head.writeHead, this, args);
  if (head.phase === HELD) storeHead(this, args);
  return this;
}

function heldFlushHeaders(this: Hooked): void {
  const head = this[HEAD]!;
  if (head.phase === SENT) if (head.flushHeaders !== undefined) call(head.flushHeaders, this, []);
}

function heldWrite(this: Hooked, ...args: unknown[]): unknown {
  const head = this[HEAD]!;
  if (head.phase === ANSWERED) return ignored(args);
  if (head.phase === HELD) send(head);
  return call(head.write, this, args);
}

function heldEnd(this: Hooked, ...args: unknown[]): unknown {
  const head = this[HEAD]!;
  if (head.phase === ANSWERED) {
    ignored(args);
    return this;
  }
  if (head.phase === HELD) send(head);
  return call(head.end, this, args);
}

/** A write or end after the middleware's own answer: dropped, its callback (if any) called. */
function ignored(args: unknown[]): true {
  const callback = args[args.length - 1];
  if (typeof callback === "function") queueMicrotask(() => (callback as () => void)());
  return true;
}

/**
 * Does what Node's `writeHead(status, [message], [headers])` does to the response's state, without
 * sending it: the status, its message and the headers (an object, or a flat `[name, value, …]` list
 * whose names replace earlier ones and may repeat, as Node treats them) are set on the response.
 */
function storeHead(response: Hooked, args: unknown[]): void {
  const [status, second, third] = args;
  const code = Number(status);
  if (!Number.isInteger(code) || code < 100 || code > 999) {
    throw Object.assign(new RangeError(`Invalid status code: ${String(status)}`), {
      code: "ERR_HTTP_INVALID_STATUS_CODE",
    });
  }
  response.statusCode = code;
  const headers = typeof second === "string" ? third : second;
  if (typeof second === "string") response.statusMessage = second;
  if (Array.isArray(headers)) storeHeaderList(response, headers);
  else if (headers !== null && typeof headers === "object") {
    for (const [name, value] of Object.entries(headers)) if (name) response.setHeader(name, value as never);
  }
}

function storeHeaderList(response: Hooked, list: unknown[]): void {
  const pairs: Array<readonly [string, unknown]> = [];
  if (Array.isArray(list[0])) for (const pair of list as unknown[][]) pairs.push([String(pair[0]), pair[1]]);
  else
    for (let index = 0; index + 1 < list.length; index += 2)
      pairs.push([String(list[index]), list[index + 1]]);
  for (const [name] of pairs) if (name) response.removeHeader(name);
  for (const [name, value] of pairs) {
    if (!name) continue;
    if (response.appendHeader !== undefined) response.appendHeader(name, value as never);
    else response.setHeader(name, value as never);
  }
}

/**
 * Holds back the status line and headers of a Node response until its first body byte: `writeHead()`
 * only sets the status and headers (as `statusCode` and `setHeader()` would), `flushHeaders()` waits,
 * and the first `write()` or `end()` sends the head with it and calls `permit.firstByte()` (the permit
 * can no longer be preempted, and the scheduler reports the time to first byte). Until then
 * `headersSent` stays false, so the middleware can still answer a preemption or a run timeout itself
 * with {@link answerInstead}, whatever the handler did with the head. The functions are shared by
 * every response; a response costs one small object.
 *
 * @example
 * if (stoppable) holdHead(res, permit); // before the handler runs
 */
export function holdHead(response: NodeHeadLike, permit: Permit): void {
  const target = response as Hooked;
  target[HEAD] = new Head(target, permit);
  target.writeHead = heldWriteHead;
  if (typeof target.flushHeaders === "function") target.flushHeaders = heldFlushHeaders;
  target.write = heldWrite;
  target.end = heldEnd;
}

/**
 * True while a response held by {@link holdHead} has sent nothing: the handler has written no body byte
 * and not ended it, and no answer of the middleware's own has gone out.
 *
 * @example
 * if (headHeld(res)) answerInstead(res, 503, headers, body);
 */
export function headHeld(response: NodeHeadLike): boolean {
  return (response as Hooked)[HEAD]?.phase === HELD;
}

// After the middleware's own answer the handler's head is moot: setting it must not throw (Node would,
// once the head has gone), and a `destroy()` (a piped body that fails) must not cut the answer short.
function ignoredHeader(this: Hooked): Hooked {
  return this;
}

function destroyWhenSent(this: Hooked & { [DESTROY]: Method }, ...args: unknown[]): unknown {
  const destroy = this[DESTROY];
  if (this.writableFinished) return call(destroy, this, args);
  this.once("finish", () => call(destroy, this, args));
  return this;
}

const DESTROY: unique symbol = Symbol("llm-scheduler destroy after the answer");

/**
 * Sends the middleware's own complete answer (a 503 for a preemption, a 504 for a run timeout) in place
 * of the handler's, on a response whose head {@link holdHead} still holds (check {@link headHeld}): the
 * status and headers the handler set are dropped (`Server-Timing` is kept), and from then on what the
 * handler still writes, ends or sets is ignored. A response that was not held is answered as usual,
 * unless its head has gone. Neither counts as the handler's own `end()`.
 *
 * @example
 * if (headHeld(res)) answerInstead(res, status, headers, body);
 */
export function answerInstead(
  response: NodeHeadLike,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: string,
): void {
  const target = response as Hooked & { [DESTROY]?: Method };
  const head = target[HEAD];
  if (head !== undefined && head.phase !== HELD) return;
  if (head === undefined && target.headersSent) return;
  for (const name of target.getHeaderNames()) if (name !== "server-timing") target.removeHeader(name);
  target.statusMessage = ""; // Node puts the status's own message
  const writeHead = head?.writeHead ?? target.writeHead;
  const end = head?.end ?? target.end;
  call(writeHead, target, [status, headers]);
  call(end, target, [body]);
  if (head === undefined) return;
  head.phase = ANSWERED;
  head.permit = null;
  target.setHeader = ignoredHeader;
  target.removeHeader = ignoredHeader;
  if (target.appendHeader !== undefined) target.appendHeader = ignoredHeader;
  target[DESTROY] = target.destroy;
  target.destroy = destroyWhenSent;
}
