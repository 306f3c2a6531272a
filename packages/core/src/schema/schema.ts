import * as valid from "../validate.js";

/** A JSON Schema fragment (draft 2020-12), as plain data. */
export type JsonSchema = { readonly [key: string]: unknown };

/** What every option declares besides its type: what it means and what it is when left out. */
export interface Meta<T> {
  /** What the option does, in one sentence: the README table's last column and the JSON Schema's description. */
  readonly doc: string;
  /** The value used when the option is left out. */
  readonly default?: T;
  /** How the default reads in the README when it is not a plain value (e.g. "its priority's `maxConcurrency`"). */
  readonly shownDefault?: string;
  /** How the range reads in the README when the words of the error message say too little. */
  readonly shownRange?: string;
}

/** One declared option: its checker, its range in words and in JSON Schema, and its {@link Meta}. */
export interface Node<T> extends Meta<T> {
  /** Returns `value` when valid; throws `INVALID_OPTION` naming `path` otherwise. */
  readonly check: (path: string, value: unknown) => T;
  /** The range in words, as the error message says it ("an integer from 1 to 100"). */
  readonly range: string;
  /** The JSON Schema of the value; `undefined` for values no file can hold (a store, a clock). */
  readonly json: JsonSchema | undefined;
  /** The fields of an object option (for nested keys, tables and merges). */
  readonly shape?: Shape;
  /** The schema of each entry of a record option (`priorities.<name>`). */
  readonly entry?: Node<unknown>;
  /** The schema of each item of a list option (`batch.tenants[]`). */
  readonly items?: Node<unknown>;
  /** True for a field that must be given: its check runs on `undefined` too (see {@link required}). */
  readonly required?: boolean;
}

/** The fields of an object option, by key. */
// biome-ignore lint/suspicious/noExplicitAny: a shape holds nodes of every value type.
export type Shape = { readonly [key: string]: Node<any> };

/** The TypeScript type of a declared option. */
export type Infer<N> = N extends Node<infer T> ? T : never;

/** The keys of `S` declared with {@link required}. */
type RequiredKeys<S extends Shape> = {
  [K in keyof S]: S[K] extends { readonly required: true } ? K : never;
}[keyof S];

/** The TypeScript type of an object of options: read-only, every field optional but the {@link required} ones. */
export type InferShape<S extends Shape> = {
  readonly [K in Exclude<keyof S, RequiredKeys<S>>]?: Infer<S[K]>;
} & { readonly [K in RequiredKeys<S>]: Infer<S[K]> };

/** A node's type records that it has a default, so that {@link Resolved} can tell. */
export type Defaulted<M> = M extends { readonly default: infer D } ? { readonly default: D } : unknown;

/** The type of an object of options once resolved: every key present, `undefined` where a field has neither a value nor a default. */
export type Resolved<S extends Shape> = {
  readonly [K in keyof S]-?: S[K] extends { readonly default: unknown } | { readonly required: true }
    ? Infer<S[K]>
    : Infer<S[K]> | undefined;
};

/** `Infinity` in JSON, where numbers cannot be infinite: a config loader maps the string to the number. */
const orInfinity = (json: JsonSchema): JsonSchema => ({ anyOf: [json, { const: "Infinity" }] });

/**
 * A node of one value: `meta` with its range in words and its JSON Schema; its check returns what `ok`
 * accepts and refuses anything else as not being `expected` (the range, unless the message says more).
 */
function leaf<T, M extends Meta<T>>(
  meta: M,
  range: string,
  json: JsonSchema | undefined,
  ok: (value: unknown) => boolean,
  expected = range,
): Node<T> & Defaulted<M> {
  const check = (path: string, value: unknown): T => {
    if (!ok(value)) throw valid.invalidOption(path, expected, value);
    return value as T;
  };
  return { ...meta, check, range, json } as Node<T> & Defaulted<M>;
}

/** The number combinators' {@link Meta}; `infinite` lets `Infinity` in too (a bound that may be switched off). */
type NumberMeta = Meta<number> & { readonly infinite?: boolean };

/** A finite number (an integer when `kind` says so) in `[min, max]`, or `Infinity` with `meta.infinite`. */
function ranged<M extends NumberMeta>(kind: "integer" | "number", min: number, max: number, meta: M) {
  const infinite = meta.infinite === true;
  const range = `${kind === "integer" ? "an integer" : "a number"} from ${min} to ${max}`;
  const finite = kind === "integer" ? Number.isInteger : Number.isFinite;
  const ok = (v: unknown) =>
    (finite(v) && (v as number) >= min && (v as number) <= max) ||
    (infinite && v === Number.POSITIVE_INFINITY);
  const json = { type: kind, minimum: min, maximum: max };
  const shown = infinite ? `${range}, or Infinity` : range;
  return leaf<number, M>(meta, shown, infinite ? orInfinity(json) : json, ok);
}

/**
 * An integer in `[min, max]`; with `infinite`, `Infinity` too.
 * @example integer(1, 10_000_000, { infinite: true, default: 10_000, doc: "At most this many wait." })
 */
export function integer<M extends NumberMeta>(
  min: number,
  max: number,
  meta: M,
): Node<number> & Defaulted<M> {
  return ranged("integer", min, max, meta);
}

/**
 * A finite number in `[min, max]`; with `infinite`, `Infinity` too.
 * @example number(0.01, 1_000, { default: 1, doc: "Share within a priority." })
 */
export function number<M extends NumberMeta>(min: number, max: number, meta: M): Node<number> & Defaulted<M> {
  return ranged("number", min, max, meta);
}

/**
 * A number above 0 and at most `max`.
 * @example positive(3_600_000, { default: 5_000, doc: "One measuring window, in ms." })
 */
export function positive<M extends Meta<number>>(max: number, meta: M): Node<number> & Defaulted<M> {
  const range = `a number in (0, ${max}]`;
  const ok = (v: unknown) => Number.isFinite(v) && (v as number) > 0 && (v as number) <= max;
  return leaf(meta, range, { type: "number", exclusiveMinimum: 0, maximum: max }, ok);
}

/**
 * A number above 0 and below 1 (a factor that shrinks what it multiplies).
 * @example fraction({ default: 0.75, doc: "The limit is multiplied by this on an overload." })
 */
export function fraction<M extends Meta<number>>(meta: M): Node<number> & Defaulted<M> {
  const range = "a number above 0 and below 1";
  const ok = (v: unknown) => Number.isFinite(v) && (v as number) > 0 && (v as number) < 1;
  return leaf(meta, range, { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 }, ok);
}

/**
 * Milliseconds above 0 and at most 365 days, or `Infinity` for "never"; with `zero`, 0 too (no wait).
 * @example duration({ default: 5_000, doc: "How long an aborted task keeps its slot." })
 */
export function duration<M extends Meta<number> & { readonly zero?: boolean }>(
  meta: M,
): Node<number> & Defaulted<M> {
  const zero = meta.zero === true;
  const max = valid.MAX_DURATION_MS;
  const ok = (v: unknown) =>
    (Number.isFinite(v) && (v as number) > 0 && (v as number) <= max) ||
    v === Number.POSITIVE_INFINITY ||
    (zero && v === 0);
  const json = { type: "number", [zero ? "minimum" : "exclusiveMinimum"]: 0, maximum: max };
  const expected = `a number of milliseconds above 0 and at most ${max} (365 days), or Infinity`;
  return leaf(meta, zero ? "0, or a duration" : "duration", orInfinity(json), ok, expected);
}

/**
 * A non-empty string of at most `maxLength` characters (`Infinity`: any length).
 * @example string(64, { default: "default", doc: "The tenant of a task that names none." })
 */
export function string<M extends Meta<string>>(maxLength: number, meta: M): Node<string> & Defaulted<M> {
  const any = maxLength === Number.POSITIVE_INFINITY;
  const json = any ? { type: "string", minLength: 1 } : { type: "string", minLength: 1, maxLength };
  const range = `a string of ${any ? "any length" : `1 to ${maxLength} characters`}`;
  const ok = (v: unknown) => typeof v === "string" && v.length > 0 && v.length <= maxLength;
  const most = any ? "" : ` of at most ${maxLength} characters`;
  return leaf(meta, range, json, ok, `a non-empty string${most}`);
}

/**
 * Any string, `""` included (free text, a filter that matches all when empty).
 * @example text({ default: "", doc: "Only requests whose prompt contains this." })
 */
export function text<M extends Meta<string>>(meta: M): Node<string> & Defaulted<M> {
  return leaf(meta, "a string", { type: "string" }, (v) => typeof v === "string");
}

/**
 * A string matching `pattern`, which `range` describes in words.
 * @example matching(/^[0-9a-f]{64}$/, "64 hexadecimal digits", { doc: "the key's SHA-256" })
 */
export function matching<M extends Meta<string>>(
  pattern: RegExp,
  range: string,
  meta: M,
): Node<string> & Defaulted<M> {
  const ok = (v: unknown) => typeof v === "string" && pattern.test(v);
  return leaf(meta, range, { type: "string", pattern: pattern.source }, ok);
}

/**
 * An instance's name, as it travels in store keys and claims: 1 to 64 letters, digits, `-` or `_`.
 * @example instanceIdNode({ shownDefault: "a random id", doc: "this instance's name in claims" })
 */
export function instanceIdNode<M extends Meta<string>>(meta: M): Node<string> & Defaulted<M> {
  return matching(/^[A-Za-z0-9_-]{1,64}$/, "1 to 64 letters, digits, `-` or `_`", meta);
}

/**
 * `true` or `false`.
 * @example boolean({ default: false, doc: "Your code says this is a retry." })
 */
export function boolean<M extends Meta<boolean>>(meta: M): Node<boolean> & Defaulted<M> {
  return leaf(meta, "boolean", { type: "boolean" }, (v) => typeof v === "boolean", "a boolean");
}

/**
 * A function (a callback or a mapping); no file can hold one, so it has no JSON Schema.
 * @example func<(error: unknown) => void>({ shownDefault: "none", doc: "Told of errors in the background." })
 */
export function func<T>(meta: Meta<T>): Node<T> {
  return leaf(meta, "a function", undefined, (v) => typeof v === "function");
}

/**
 * An object with the methods `names` (a scheduler, a store, a client): what a package is given to call,
 * checked by the calls it will make. `range` says what it is, in the message and the README.
 *
 * @example
 * const store = methods<BatchStore>(["claim"], { range: "a `BatchStore`", doc: "Where batches live." });
 */
export function methods<T>(names: readonly string[], meta: Meta<T> & { readonly range: string }): Node<T> {
  const ok = (v: unknown) =>
    typeof v === "object" &&
    v !== null &&
    names.every((n) => typeof (v as Record<string, unknown>)[n] === "function");
  return leaf(meta, meta.range, undefined, ok);
}

/**
 * One of a few strings.
 * @example oneOf(["requests", "tokens"], { default: "requests", doc: "How tenants share a priority." })
 */
export function oneOf<const T extends string, M extends Meta<T>>(
  values: readonly T[],
  meta: M,
): Node<T> & Defaulted<M> {
  const range = values.map((v) => `"${v}"`).join(" or ");
  const ok = (v: unknown) => values.includes(v as T);
  return leaf(meta, range, { enum: values }, ok);
}

/**
 * An object of the fields in `shape` (every one optional); any other key is refused with a did-you-mean.
 * `check` returns the given fields without `undefined` ones, each checked.
 *
 * @example
 * const preemptible = object({ maxPerTask: integer(1, 100, { default: 2, doc: "…" }) }, { doc: "…" });
 */
export function object<S extends Shape>(shape: S, meta: Meta<InferShape<S>>): Node<InferShape<S>> {
  const keys = Object.keys(shape);
  const check = (path: string, value: unknown): InferShape<S> => {
    const given = valid.plainObject(path === "" ? "options" : path, value);
    valid.rejectUnknownKeys(path, given, keys);
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      if (given[key] !== undefined || shape[key]!.required === true)
        out[key] = shape[key]!.check(path === "" ? key : `${path}.${key}`, given[key]);
    }
    return out as InferShape<S>;
  };
  const properties = Object.fromEntries(
    keys.filter((key) => shape[key]!.json !== undefined).map((key) => [key, jsonOf(shape[key]!)]),
  );
  const needed = keys.filter((key) => shape[key]!.required === true && shape[key]!.json !== undefined);
  const json = { type: "object", properties, ...(needed.length > 0 ? { required: needed } : {}) };
  return { ...meta, check, range: "an object", json: { ...json, additionalProperties: false }, shape };
}

/**
 * An object of named entries, each of `entry`'s schema; `key` checks (and may rewrite, for the path) a name.
 *
 * @example
 * const tenants = record(tenantSchema, { doc: "Named tenants." });
 */
export function record<T>(
  entry: Node<T>,
  meta: Meta<Readonly<Record<string, T>>> & { readonly key?: (path: string, key: string) => string },
): Node<Readonly<Record<string, T>>> {
  const check = (path: string, value: unknown): Readonly<Record<string, T>> => {
    const given = valid.plainObject(path, value);
    const out: Record<string, T> = {};
    for (const [name, fields] of Object.entries(given)) {
      const shown = meta.key?.(path, name) ?? name;
      defineEntry(out, name, entry.check(`${path}.${shown}`, fields));
    }
    return out;
  };
  const json = { type: "object", additionalProperties: entry.json === undefined ? true : jsonOf(entry) };
  return { ...meta, check, range: "an object", json, entry };
}

/**
 * An array of `min` to `max` items of `items`' schema, each checked with its index in the path; a
 * refused array is shown by its length only.
 *
 * @example
 * const ratesPerSec = list(number(0, 100_000, { doc: "…" }), 1, 10_000, { doc: "The rate of each step." });
 */
export function list<T, M extends Meta<readonly T[]>>(
  items: Node<T>,
  min: number,
  max: number,
  meta: M,
): Node<readonly T[]> & Defaulted<M> {
  const range = max === Number.POSITIVE_INFINITY ? "an array" : `an array of ${min} to ${max} entries`;
  const check = (path: string, value: unknown): readonly T[] => {
    if (!Array.isArray(value) || value.length < min || value.length > max) {
      // an array's entries are never shown: they may hold credentials (a gateway's keys)
      throw valid.invalidOption(path, range, Array.isArray(value) ? `[${value.length} entries]` : value);
    }
    return value.map((item, index) => items.check(`${path}[${index}]`, item));
  };
  const json = {
    type: "array",
    items: { ...items.json, description: items.doc },
    minItems: min,
    maxItems: max,
  };
  return { ...meta, check, range, json, items } as Node<readonly T[]> & Defaulted<M>;
}

/**
 * A value checked by code of its own (`check`), described by `range` and `json`.
 *
 * @example
 * const clock = custom<Clock>({ range: "a clock", json: undefined, check: checkClock, doc: "Time source." });
 */
export function custom<T>(
  node: Meta<T> & { readonly default: T } & Pick<Node<T>, "check" | "range" | "json">,
): Node<T> & { readonly default: T };
export function custom<T>(node: Meta<T> & Pick<Node<T>, "check" | "range" | "json">): Node<T>;
export function custom<T>(node: Meta<T> & Pick<Node<T>, "check" | "range" | "json">): Node<T> {
  return node;
}

/**
 * `node` as a field that must be given: left out, its check names it (``Expected `execute` to be a
 * function, got `undefined` (undefined)``), and its type in {@link InferShape} is not optional.
 *
 * @example
 * const BATCHES = { execute: required(func<Execute>({ doc: "Runs one item upstream." })) };
 */
export function required<T>(node: Node<T>): Node<T> & { readonly required: true } {
  return { ...node, shownDefault: node.shownDefault ?? "required", required: true };
}

/** Sets `out[key]` by definition, not assignment: a key `__proto__` (a tenant's name) stays an entry. */
export function defineEntry(out: object, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The node's JSON Schema with its description and default. */
function jsonOf(node: Node<unknown>): JsonSchema {
  const json: Record<string, unknown> = { ...node.json, description: node.doc };
  if (node.default !== undefined) {
    json.default = node.default === Number.POSITIVE_INFINITY ? "Infinity" : node.default;
  }
  return json;
}

/**
 * `options` (`undefined`: none) checked against `shape` (unknown keys refused, paths in messages) with
 * the declared defaults filled in: the one-call resolver of a package's options. A field with neither a
 * value nor a default is `undefined`.
 *
 * @example
 * const resolved = resolveShape(BATCHES, options); // resolved.pollMs === 1_000 when left out
 */
export function resolveShape<S extends Shape>(shape: S, options: unknown): Resolved<S> {
  const checked = object(shape, { doc: "" }).check("", options === undefined ? {} : options);
  return withDefaults(shape, checked);
}

/**
 * The defaults declared in `shape` under the given fields (given ones win; `undefined` ones are dropped).
 *
 * @example
 * withDefaults(PRIORITY.shape, { weight: 5 }); // { weight: 5, reserved: 0, queueTimeoutMs: 60_000, … }
 */
export function withDefaults<S extends Shape>(shape: S, given: InferShape<S>): Resolved<S> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    const value = (given as Record<string, unknown>)[key] ?? shape[key]!.default;
    if (value !== undefined) out[key] = value;
  }
  return out as Resolved<S>;
}
