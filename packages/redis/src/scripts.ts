import { createHash } from "node:crypto";
import type { Cluster } from "ioredis";
import type { Connection } from "./connection.js";
import { isCluster } from "./connection-options.js";
import {
  type FunctionLibrary,
  functionLibrary,
  SCRIPT_NAMES,
  type ScriptName,
  scriptSource,
} from "./lua-source.js";

export { type ScriptName, scriptSource } from "./lua-source.js";

/** How the store's Lua reaches Redis: Redis Functions (`FCALL`), or scripts by SHA (`EVALSHA`). */
export type ScriptMode = "functions" | "scripts";

interface Script {
  readonly source: string;
  readonly sha: string;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const isNoScript = (error: unknown): boolean => message(error).startsWith("NOSCRIPT");
const isFunctionMissing = (error: unknown): boolean => message(error).includes("Function not found");
const isAlreadyLoaded = (error: unknown): boolean => /Library '.*' already exists/.test(message(error));
/**
 * An answer from Redis (an unknown command, NOPERM, ...), not a connection that failed, and not Redis
 * rejecting the library's own code: that is a bug to report, not a reason to fall back to scripts.
 */
const isRefusal = (error: unknown): boolean =>
  error instanceof Error &&
  error.name === "ReplyError" &&
  !/Error (registering|compiling) function/i.test(error.message);

/**
 * The store's Lua on one connection. By default one Redis Function library (`FUNCTION LOAD` once, on
 * every master of a cluster; then `FCALL`), which defines the shared Lua functions once instead of on
 * every call. Where `FUNCTION LOAD` is refused (Redis before 7, a managed service or an ACL that
 * forbids it), or with `mode: "scripts"`, one script per operation: `SCRIPT LOAD`, then `EVALSHA`.
 * Redis forgetting them (a restart without persistence, `FUNCTION FLUSH`, `SCRIPT FLUSH`, a cluster
 * node that took a slot over) is repaired on the call that finds out, which then runs.
 *
 * @example
 * const scripts = new Scripts(client);
 * await scripts.load();
 * const reply = await scripts.run("tick", keys, args);
 */
export class Scripts {
  readonly #client: Connection;
  readonly #scripts: ReadonlyMap<ScriptName, Script>;
  readonly #library: FunctionLibrary;
  #mode: ScriptMode;
  /** The library being loaded again after a call found it missing; shared by every such call. */
  #reloading: Promise<void> | null = null;

  constructor(client: Connection, mode: ScriptMode = "functions") {
    this.#client = client;
    this.#mode = mode;
    this.#library = functionLibrary();
    this.#scripts = new Map(
      SCRIPT_NAMES.map((name) => {
        const source = scriptSource(name);
        return [name, { source, sha: createHash("sha1").update(source).digest("hex") }];
      }),
    );
  }

  /** Which way calls go now: it turns to `"scripts"` when Redis refuses Functions. */
  get mode(): ScriptMode {
    return this.#mode;
  }

  #nodes(): readonly Connection[] {
    const client = this.#client;
    return isCluster(client) ? (client as unknown as Cluster).nodes("master") : [client];
  }

  /** Loads the library, or every script where Functions are refused; call on (re)connection. */
  async load(): Promise<void> {
    if (this.#mode === "functions" && (await this.#loadFunctions())) return;
    this.#mode = "scripts";
    const sources = [...this.#scripts.values()].map((script) => script.source);
    await Promise.all(this.#nodes().flatMap((node) => sources.map((source) => node.script("LOAD", source))));
  }

  /**
   * True when every node has the library (loaded now or before); false when one refused it. Fails
   * when a node cannot be reached, as a script load would.
   */
  async #loadFunctions(): Promise<boolean> {
    const source = this.#library.source;
    const loads = this.#nodes().map((node) =>
      node.call("FUNCTION", "LOAD", source).then(
        () => true,
        (error: unknown) => {
          if (isAlreadyLoaded(error)) return true;
          if (isRefusal(error)) return false;
          throw error;
        },
      ),
    );
    return (await Promise.all(loads)).every(Boolean);
  }

  /**
   * Runs one operation: `FCALL`, or `EVALSHA`. When Redis no longer knows the function, the library
   * is loaded again (once for every call that found out) and the call made again; when it does not
   * know the script, the call runs by its source (`EVAL`), which loads it there too.
   */
  run(name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    if (this.#mode === "scripts") return this.#evalsha(name, keys, args);
    return this.#fcall(name, keys, args).catch((error: unknown) => {
      if (!isFunctionMissing(error)) throw error;
      this.#reloading ??= this.load().finally(() => {
        this.#reloading = null;
      });
      return this.#reloading.then(() => {
        if (this.#mode === "scripts") return this.#evalsha(name, keys, args);
        return this.#fcall(name, keys, args).catch((again: unknown) => {
          if (!isFunctionMissing(again)) throw again;
          return this.#eval(name, keys, args);
        });
      });
    });
  }

  #fcall(name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.#client.fcall(this.#library.functions[name]!, keys.length, ...keys, ...args);
  }

  #evalsha(name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    const { sha } = this.#scripts.get(name)!;
    return this.#client.evalsha(sha, keys.length, ...keys, ...args).catch((error: unknown) => {
      if (!isNoScript(error)) throw error;
      return this.#eval(name, keys, args);
    });
  }

  #eval(name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.#client.eval(this.#scripts.get(name)!.source, keys.length, ...keys, ...args);
  }
}
