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

/** The parts of a configuration the object relies on before handing it to the memory store. */
function checkConfig(value: unknown): void {
  need(isObject(value), "`config` to be an object");
  const c = value as Fields;
  need(
    isNumber(c.leaseMs) && c.leaseMs >= 500 && c.leaseMs <= 3_600_000,
    "`config.leaseMs` from 500 to 3600000",
  );
  need(c.agingClock === "object" || c.agingClock === "scheduler", "`config.agingClock`");
  need(typeof c.maxConcurrency === "number" && c.maxConcurrency >= 1, "`config.maxConcurrency` >= 1");
  need(c.fairness === "requests" || c.fairness === "tokens", "`config.fairness`");
  need(
    Array.isArray(c.priorities) &&
      c.priorities.length > 0 &&
      c.priorities.every((p: unknown) => isObject(p) && isText(p.name) && isNumber(p.weight) && p.weight > 0),
    "`config.priorities` to be named priorities with weights",
  );
  need(c.tenantWeights instanceof Map && c.tenantQuotas instanceof Map, "`config` tenant maps");
  need(isObject(c.tenantDefaults), "`config.tenantDefaults`");
}

/**
 * Checks a decoded call body's shape (what the object reads of it), so that a malformed or hostile
 * call gets a 400 instead of reaching the queue. A configuration is checked for the fields the object
 * relies on; the rest is what this package's client sends from a validated scheduler.
 */
export function checkMessage(value: unknown): Message {
  need(isObject(value), "a JSON object");
  const m = value as Fields;
  need(typeof m.op === "string" && OPS.has(m.op), "`op` to be a known operation");
  need(isText(m.client, 100) && isNumber(m.now), "`client` to be a string and `now` a number");
  if (m.config !== undefined) checkConfig(m.config);
  need(
    m.renew === undefined || (Array.isArray(m.renew) && m.renew.every((k) => isText(k, 200))),
    "`renew` keys",
  );
  if (m.op === "enqueue" || m.op === "wait" || m.op === "usage") checkTicket(m.ticket);
  if (m.op === "wait") {
    need(
      isNumber(m.epoch) && isNumber(m.waitMs) && m.waitMs >= 0 && m.waitMs <= 60_000,
      "`epoch` and `waitMs`",
    );
  }
  if (m.op === "remove" || m.op === "release") need(isText(m.key, 200), "`key`");
  if (m.op === "usage") {
    const usage = m.usage as Fields | undefined;
    need(isObject(usage) && isNumber(usage.inputTokens) && isNumber(usage.outputTokens), "`usage`");
  }
  return value as Message;
}
