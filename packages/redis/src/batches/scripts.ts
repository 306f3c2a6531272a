import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { BatchRedisClient } from "./options.js";

/** One Lua script per atomic step of the batch store, each under `src/batches/lua/<name>.lua`. */
export type BatchScriptName =
  | "claim"
  | "extend"
  | "settle"
  | "start"
  | "fail"
  | "cancel"
  | "sweep"
  | "retry"
  | "file-create"
  | "file-append"
  | "file-delete"
  | "file-expiry";

const NAMES: readonly BatchScriptName[] = [
  "claim",
  "extend",
  "settle",
  "start",
  "fail",
  "cancel",
  "sweep",
  "retry",
  "file-create",
  "file-append",
  "file-delete",
  "file-expiry",
];

// `../../src/batches/lua/` resolves from both src/batches/ (sources) and dist/batches/ (build).
const LUA_DIR = new URL("../../src/batches/lua/", import.meta.url);

/**
 * The full text of one batch script, with `--@include lib` replaced by the shared functions.
 *
 * @example
 * await redis.script("LOAD", batchScriptSource("claim"));
 */
export function batchScriptSource(name: BatchScriptName): string {
  const library = readFileSync(new URL("lib.lua", LUA_DIR), "utf8");
  const source = readFileSync(new URL(`${name}.lua`, LUA_DIR), "utf8");
  if (!source.includes("--@include lib")) throw new Error(`${name}.lua does not include the library`);
  return source.replace("--@include lib", () => library);
}

/**
 * The batch scripts on one connection: called by SHA (`EVALSHA`), loaded again only when Redis answers
 * `NOSCRIPT` (after a restart or a `SCRIPT FLUSH`).
 *
 * @example
 * const scripts = new BatchScripts(client);
 * const reply = await scripts.run("claim", [prefix, now, 30_000, 64]);
 */
export class BatchScripts {
  readonly #client: BatchRedisClient;
  readonly #scripts = new Map<BatchScriptName, { source: string; sha: string }>();

  constructor(client: BatchRedisClient) {
    this.#client = client;
    for (const name of NAMES) {
      const source = batchScriptSource(name);
      this.#scripts.set(name, { source, sha: createHash("sha1").update(source).digest("hex") });
    }
  }

  run(name: BatchScriptName, args: readonly (string | number)[]): Promise<unknown> {
    const script = this.#scripts.get(name)!;
    return this.#client.evalsha(script.sha, 0, ...args).catch(async (error: unknown) => {
      if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) throw error;
      await this.#client.script("LOAD", script.source);
      return this.#client.evalsha(script.sha, 0, ...args);
    });
  }
}
