import type { Message } from "./wire.js";

const OPS = new Set([
  "configure",
  "renew",
  "removeAll",
  "leave",
  "enqueue",
  "wait",
  "remove",
  "release",
  "usage",
]);

/** The call's body did not have the shape of a {@link Message}: answered with a 400. */
export class BadMessage extends Error {
  override readonly name = "BadMessage";
}

type Fields = Record<string, unknown>;

function need(ok: boolean, what: string): void {
  if (!ok) throw new BadMessage(`Expected ${what}`);
}

const isText = (value: unknown, max = 256): value is string =>
  typeof value === "string" && value.length > 0 && value.length <= max;
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isObject = (value: unknown): value is Fields =>
  value !== null && typeof value === "object" && !Array.isArray(value);

function checkTicket(value: unknown): void {
  need(isObject(value), "`ticket` to be an object");
  const t = value as Fields;
  need(isText(t.key, 200), "`ticket.key` to be a string");
  need(isText(t.priority) && isText(t.tenant), "`ticket.priority` and `ticket.tenant` to be strings");
  need(isNumber(t.cost) && t.cost > 0, "`ticket.cost` to be a positive number");
  need(
    t.tokens === undefined || (isNumber(t.tokens) && t.tokens >= 0),
    "`ticket.tokens` to be a number >= 0",
  );
  need(typeof t.retry === "boolean" && isNumber(t.enqueuedAt), "`ticket.retry` and `ticket.enqueuedAt`");
}

/**
 * Checks a decoded call body's shape (what the object reads of it), so that a malformed or hostile
 * call gets a 400 instead of reaching the queue. Configurations come from this package's own client
 * and are not checked field by field.
 */
export function checkMessage(value: unknown): Message {
  need(isObject(value), "a JSON object");
  const m = value as Fields;
  need(typeof m.op === "string" && OPS.has(m.op), "`op` to be a known operation");
  need(isText(m.client, 100) && isNumber(m.now), "`client` to be a string and `now` a number");
  need(m.config === undefined || isObject(m.config), "`config` to be an object");
  need(
    m.renew === undefined || (Array.isArray(m.renew) && m.renew.every((k) => isText(k, 200))),
    "`renew` keys",
  );
  if (m.op === "enqueue" || m.op === "wait") checkTicket(m.ticket);
  if (m.op === "wait") {
    need(
      isNumber(m.epoch) && isNumber(m.waitMs) && m.waitMs >= 0 && m.waitMs <= 60_000,
      "`epoch` and `waitMs`",
    );
  }
  if (m.op === "remove" || m.op === "release" || m.op === "usage") need(isText(m.key, 200), "`key`");
  if (m.op === "usage") {
    const usage = m.usage as Fields | undefined;
    need(isObject(usage) && isNumber(usage.inputTokens) && isNumber(usage.outputTokens), "`usage`");
  }
  return value as Message;
}
