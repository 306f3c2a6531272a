import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

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
  | "limit"
  | "yield"
  | "spare";

export const SCRIPT_NAMES: readonly ScriptName[] = [
  "enqueue",
  "release",
  "remove",
  "step",
  "configure",
  "tick",
  "adopt",
  "leave",
  "limit",
  "yield",
  "spare",
];
/** The shared functions, concatenated in this order where a script says `--@include lib`. */
export const LIBRARY_PARTS = [
  "base",
  "quotas",
  "fair",
  "ring",
  "upkeep",
  "pick",
  "preempt",
  "pump",
  "finish",
  "ops",
];

const INCLUDE = "--@include lib";

// `../src/lua/` resolves from both src/ (sources) and dist/ (build): the package ships src/.
const LUA_DIR = new URL("../src/lua/", import.meta.url);

/** The text of `src/lua/<path>`. */
export function readLua(path: string): string {
  return readFileSync(new URL(path, LUA_DIR), "utf8");
}

let library: string | undefined;

/** The shared functions (`src/lua/lib/`), in include order; defining them sets no per-call state. */
export function libraryCode(): string {
  library ??= LIBRARY_PARTS.map((part) => readLua(`lib/${part}.lua`)).join("\n");
  return library;
}

/** One operation's own code, from its header to its last `return`, without the library. */
function operationCode(name: ScriptName): string {
  const source = readLua(`${name}.lua`);
  if (!source.includes(INCLUDE)) throw new Error(`${name}.lua does not include the library`);
  return source.replace(INCLUDE, "");
}

/**
 * The full text of one script for `EVAL`/`EVALSHA`, with `--@include lib` replaced by the shared
 * functions and the call's start (`reset()`, which reads KEYS, ARGV and Redis TIME).
 *
 * @example
 * await redis.script("LOAD", scriptSource("release"));
 */
export function scriptSource(name: ScriptName): string {
  const source = readLua(`${name}.lua`);
  if (!source.includes(INCLUDE)) throw new Error(`${name}.lua does not include the library`);
  return source.replace(INCLUDE, () => `${libraryCode()}\nreset()\n`);
}

/** A Redis Function library: its name, its source for `FUNCTION LOAD`, and each operation's function. */
export interface FunctionLibrary {
  readonly name: string;
  readonly source: string;
  /** Operation -> function name. */
  readonly functions: Readonly<Record<string, string>>;
}

/**
 * Every operation as one Redis Function library (Redis 7+): the shared functions are defined once, when
 * the library is loaded, instead of on every call. The library's name carries a digest of its source,
 * so instances running different versions of the store each call their own functions.
 * `bodies` replaces the operations (for measuring parts of a call); every body runs after `reset()`.
 *
 * @example
 * const { source, functions } = functionLibrary();
 * await redis.function("LOAD", source);
 * await redis.fcall(functions.release, keys.length, ...keys, prefix, instance, "", id);
 */
export function functionLibrary(
  bodies: Readonly<Record<string, string>> = Object.fromEntries(
    SCRIPT_NAMES.map((name) => [name, operationCode(name)]),
  ),
): FunctionLibrary {
  const operations = Object.entries(bodies);
  const code = [
    "local KEYS, ARGV",
    libraryCode(),
    ...operations.map(([name, body]) => `local function op_${name}()\n${body}\nend`),
    "local function entry(op)",
    "  return function(keys, args)",
    "    KEYS, ARGV = keys, args",
    "    reset()",
    "    return op()",
    "  end",
    "end",
  ].join("\n");
  const name = `llm_scheduler_${createHash("sha1").update(code).digest("hex").slice(0, 16)}`;
  const functions = Object.fromEntries(operations.map(([op]) => [op, `${name}_${op}`]));
  const registrations = operations.map(([op]) => `redis.register_function("${name}_${op}", entry(op_${op}))`);
  const source = [`#!lua name=${name}`, code, ...registrations, ""].join("\n");
  return { name, source, functions };
}
