import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Cluster } from "ioredis";
import type { Connection } from "./connection.js";
import { isCluster } from "./connection-options.js";

/** One Lua script per store operation, each under `src/lua/<name>.lua`. */
export type ScriptName =
  | "enqueue"
  | "release"
  | "remove"
  | "step"
  | "configure"
  | "tick"
  | "adopt"
  | "leave"
  | "limit";

const NAMES: readonly ScriptName[] = [
  "enqueue",
  "release",
  "remove",
  "step",
  "configure",
  "tick",
  "adopt",
  "leave",
  "limit",
];
/** The shared functions, concatenated in this order where a script says `--@include lib`. */
const LIBRARY = ["base", "ring", "upkeep", "pick", "finish", "ops"];

// `../src/lua/` resolves from both src/ (sources) and dist/ (build): the package ships src/.
const LUA_DIR = new URL("../src/lua/", import.meta.url);

function read(path: string): string {
  return readFileSync(new URL(path, LUA_DIR), "utf8");
}

let library: string | undefined;

/**
 * The full text of one script, with `--@include lib` replaced by the shared functions.
 *
 * @example
 * await redis.script("LOAD", scriptSource("release"));
 */
export function scriptSource(name: ScriptName): string {
  library ??= LIBRARY.map((part) => read(`lib/${part}.lua`)).join("\n");
  const source = read(`${name}.lua`);
  if (!source.includes("--@include lib")) throw new Error(`${name}.lua does not include the library`);
  return source.replace("--@include lib", () => library!);
}

interface Script {
  readonly source: string;
  readonly sha: string;
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}

/**
 * The store's scripts on one connection: loaded once (`SCRIPT LOAD`), then called by SHA with
 * `EVALSHA`; a script is loaded again only when Redis answers `NOSCRIPT` (after a restart or a
 * `SCRIPT FLUSH`).
 *
 * @example
 * const scripts = new Scripts(client);
 * await scripts.load();
 * const reply = await scripts.run("tick", keys, args);
 */
export class Scripts {
  readonly #client: Connection;
  readonly #scripts: ReadonlyMap<ScriptName, Script>;

  constructor(client: Connection) {
    this.#client = client;
    this.#scripts = new Map(
      NAMES.map((name) => {
        const source = scriptSource(name);
        return [name, { source, sha: createHash("sha1").update(source).digest("hex") }];
      }),
    );
  }

  /** Loads every script (on a cluster, on every master); call on (re)connection. */
  async load(): Promise<void> {
    const client = this.#client;
    const nodes: readonly Connection[] = isCluster(client)
      ? (client as unknown as Cluster).nodes("master")
      : [client];
    const sources = [...this.#scripts.values()].map((script) => script.source);
    await Promise.all(nodes.flatMap((node) => sources.map((source) => node.script("LOAD", source))));
  }

  /**
   * Runs a script by SHA; when Redis does not know it (after a restart, a `SCRIPT FLUSH`, or on a
   * cluster node that took the slot over), runs it once by its source, which loads it there too.
   */
  run(name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    const script = this.#scripts.get(name)!;
    return this.#client.evalsha(script.sha, keys.length, ...keys, ...args).catch((error: unknown) => {
      if (!isNoScript(error)) throw error;
      return this.#client.eval(script.source, keys.length, ...keys, ...args);
    });
  }
}
