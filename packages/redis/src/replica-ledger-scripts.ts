import { createHash } from "node:crypto";
import { readLua } from "./lua-source.js";
import type { RedisClient } from "./options.js";

export type LedgerScript = "take" | "release" | "renew" | "counts" | "eject" | "ejections";

interface Script {
  readonly source: string;
  readonly sha: string;
}

/** The scripts that report counts start with the shared functions of `replicas/snapshot.lua`. */
const WITH_SNAPSHOT = new Set<LedgerScript>(["take", "release", "renew"]);

const SCRIPTS = new Map<LedgerScript, Script>(
  (["take", "release", "renew", "counts", "eject", "ejections"] as const).map((name) => {
    const own = readLua(`replicas/${name}.lua`);
    const source = WITH_SNAPSHOT.has(name) ? `${readLua("replicas/snapshot.lua")}\n${own}` : own;
    return [name, { source, sha: createHash("sha1").update(source).digest("hex") }];
  }),
);

/** Runs one of the ledger's scripts by its SHA, loading it when Redis does not know it (yet, or any more). */
export async function runLedgerScript(
  redis: RedisClient,
  name: LedgerScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  const script = SCRIPTS.get(name)!;
  try {
    return (await redis.evalsha(script.sha, keys.length, ...keys, ...args)) as unknown;
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    return (await redis.eval(script.source, keys.length, ...keys, ...args)) as unknown;
  }
}

/** A snapshot of the pool's counts: the sequence it was taken at and the live leases per replica id. */
export interface CountsSnapshot {
  readonly seq: number;
  readonly counts: Readonly<Record<string, number>>;
}

/** `{ seq, counts }` from a script's reply `[...head, seq, count of ids[0], ...]`. */
export function snapshotOf(reply: readonly unknown[], from: number, ids: readonly string[]): CountsSnapshot {
  const counts: Record<string, number> = {};
  ids.forEach((id, i) => {
    counts[id] = Number(reply[from + 1 + i] ?? 0);
  });
  return { seq: Number(reply[from]), counts };
}

/** A snapshot from a message on the pool's channel (JSON `[seq, id, count, ...]`), or `undefined`. */
export function snapshotOfMessage(message: string): CountsSnapshot | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== "number") return undefined;
  const counts: Record<string, number> = {};
  for (let i = 1; i + 1 < parsed.length; i += 2) {
    const id: unknown = parsed[i];
    const count: unknown = parsed[i + 1];
    if (typeof id === "string" && typeof count === "number") counts[id] = count;
  }
  return { seq: parsed[0], counts };
}
