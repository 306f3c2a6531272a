import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  LIVE_KEYS,
  PRIORITY,
  SCHEDULER,
  type SchedulerOptions,
  type SchedulerUpdate,
  TENANT,
} from "../options.js";
import { mergeUpdate } from "../resolve-options.js";
import { createScheduler } from "../scheduler.js";
import { TASK } from "../task-option-schema.js";
import { optionsFromJson, toJsonSchema } from "./json-schema.js";
import { optionTable } from "./markdown.js";
import {
  func,
  integer,
  type JsonSchema,
  list,
  type Node,
  object,
  type Resolved,
  record,
  required,
  resolveShape,
  text,
  withDefaults,
} from "./schema.js";

const SHAPES = { SCHEDULER, PRIORITY, TENANT, TASK };
const leaves = Object.entries(SHAPES).flatMap(([shape, fields]) =>
  Object.entries(fields).map(([key, node]) => [`${shape}.${key}`, node as Node<unknown>] as const),
);

/** The number range a JSON Schema fragment allows (its first branch, without the `"Infinity"` one). */
function bounds(
  json: JsonSchema,
): { min: number; max: number; above?: number; integer: boolean } | undefined {
  const branch = (Array.isArray(json.anyOf) ? json.anyOf[0] : json) as JsonSchema;
  if (branch.type !== "number" && branch.type !== "integer") return undefined;
  return {
    min: (branch.minimum as number | undefined) ?? Number.NEGATIVE_INFINITY,
    max: branch.maximum as number,
    above: branch.exclusiveMinimum as number | undefined,
    integer: branch.type === "integer",
  };
}

describe("the options' schema", () => {
  it.each(leaves.filter(([, node]) => node.default !== undefined))(
    "%s: its default passes its own check",
    (_, node) => {
      expect(node.check("x", node.default)).toBe(node.default);
    },
  );

  it("accepts exactly the finite numbers its JSON Schema allows, for every numeric option", () => {
    const numeric = leaves.flatMap(([name, node]) => {
      const range = node.json === undefined ? undefined : bounds(node.json);
      // `maxConcurrency` is checked with `adaptive` by adaptive/options.ts, not by its node.
      return range === undefined || name === "SCHEDULER.maxConcurrency" ? [] : [[name, node, range] as const];
    });
    expect(numeric.length).toBeGreaterThan(15);
    const value = fc.oneof(
      fc.integer({ min: -5, max: 2_000_000 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...numeric), value, ([, node, range], n) => {
        const allowed =
          n >= range.min &&
          n <= range.max &&
          (range.above === undefined || n > range.above) &&
          (!range.integer || Number.isInteger(n));
        let accepted = true;
        try {
          node.check("x", n);
        } catch {
          accepted = false;
        }
        expect(accepted).toBe(allowed);
      }),
    );
  });

  it("names the whole path of an unknown nested key, with the nearest known one", () => {
    expect(() => createScheduler({ priorities: { interactive: { weigth: 2 } } } as never)).toThrow(
      "Unknown option `priorities.interactive.weigth`; did you mean `weight`?",
    );
    const node = record(object({ limit: integer(1, 5, { doc: "" }) }, { doc: "" }), { doc: "" });
    expect(() => node.check("gateway.routes", { a: { limit: 0 } })).toThrow(
      "Expected `gateway.routes.a.limit` to be an integer from 1 to 5, got `0` (number)",
    );
    expect(() => node.check("gateway.routes", { a: { limt: 1 } })).toThrow(
      "Unknown option `gateway.routes.a.limt`; did you mean `limit`?",
    );
  });

  it("keeps an entry named `__proto__` as an entry", () => {
    const node = record(object({ limit: integer(1, 5, { doc: "" }) }, { doc: "" }), { doc: "" });
    const checked = node.check("tenants", JSON.parse('{"__proto__": {"limit": 2}}'));
    expect(Object.keys(checked)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(checked)).toBe(Object.prototype);
  });

  it("merges the declared defaults under the given fields", () => {
    expect(withDefaults(PRIORITY, { weight: 5, reserved: undefined })).toEqual({
      weight: 5,
      reserved: 0,
      queueTimeoutMs: 60_000,
      maxQueue: 10_000,
      maxWaitMs: Number.POSITIVE_INFINITY,
    });
  });

  it("merges an update by the schema: objects by field, records by entry, the rest replaced", () => {
    const merged = mergeUpdate(
      {
        maxConcurrency: { min: 1, max: 8 },
        adaptive: { windowMs: 500 },
        waitTargets: { maxBoost: 8 },
        maxQueue: 5,
      },
      { adaptive: { minSamples: 3 }, waitTargets: { calmWindows: 2 }, maxQueue: 9 },
    );
    expect(merged.adaptive).toEqual({ windowMs: 500, minSamples: 3 });
    expect(merged.waitTargets).toEqual({ maxBoost: 8, calmWindows: 2 });
    expect(merged.maxQueue).toBe(9);
    expect(() => mergeUpdate({}, { retryWindowMs: 5 } as never)).toThrow("Unknown option `retryWindowMs`");
  });
});

describe("toJsonSchema()", () => {
  const schema = toJsonSchema();
  const properties = schema.properties as Record<string, JsonSchema>;

  it("lists every option a file can hold, and refuses unknown keys", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.additionalProperties).toBe(false);
    const fileKeys = Object.keys(SCHEDULER).filter((key) => key !== "store" && key !== "clock");
    expect(Object.keys(properties)).toEqual(fileKeys);
  });

  it("describes nested options with their ranges, defaults and meanings", () => {
    const priority = (properties.priorities!.additionalProperties as JsonSchema).properties as Record<
      string,
      JsonSchema
    >;
    expect(priority.weight).toEqual({
      type: "number",
      minimum: 0.001,
      maximum: 1_000_000,
      default: 1,
      description: PRIORITY.weight.doc,
    });
    expect(priority.maxWaitMs!.default).toBe("Infinity");
    expect(priority.maxWaitMs!.anyOf).toContainEqual({ const: "Infinity" });
    expect(properties.fairness!.enum).toEqual(["requests", "tokens"]);
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});

describe("optionsFromJson()", () => {
  it('turns "Infinity" into the number where a bound may be infinite, and nothing else', () => {
    const json = JSON.parse(
      '{"maxQueue":"Infinity","defaultTenant":"Infinity","priorities":{"batch":{"maxWaitMs":"Infinity","weight":"Infinity"}},"tenants":{"a":{"tokensPerMinute":"Infinity"}},"tenantDefaults":{"maxQueue":"Infinity"},"unknown":"Infinity"}',
    );
    expect(optionsFromJson(json)).toEqual({
      maxQueue: Number.POSITIVE_INFINITY,
      defaultTenant: "Infinity",
      priorities: { batch: { maxWaitMs: Number.POSITIVE_INFINITY, weight: "Infinity" } },
      tenants: { a: { tokensPerMinute: Number.POSITIVE_INFINITY } },
      tenantDefaults: { maxQueue: Number.POSITIVE_INFINITY },
      unknown: "Infinity",
    });
  });

  it("leaves the checks to createScheduler(), which names the path", () => {
    const options = optionsFromJson({ priorities: { batch: { weight: "Infinity" } } });
    expect(() => createScheduler(options)).toThrow(
      "Expected `priorities.batch.weight` to be a number from 0.001 to 1000000, got `Infinity` (string)",
    );
  });
});

describe("the derived types", () => {
  it("let update() take only the live options, and the options only declared keys", () => {
    const update: SchedulerUpdate = { maxQueue: 5, priorities: { batch: { weight: 2 } } };
    // @ts-expect-error `retryWindowMs` is fixed at creation: not part of an update
    const fixed: SchedulerUpdate = { retryWindowMs: 5 };
    // @ts-expect-error an unknown key is a type error as well as a run-time one
    const typo: SchedulerOptions = { priorities: { batch: { weigth: 2 } } };
    expect([update, fixed, typo]).toHaveLength(3);
    expect(LIVE_KEYS).not.toContain("retryWindowMs");
  });
});

describe("a package's own options (resolveShape)", () => {
  const SHAPE = {
    run: required(func<() => void>({ doc: "what to run" })),
    limit: integer(1, 5, { default: 2, doc: "at most this many" }),
    onError: func<(error: unknown) => void>({ doc: "told of errors" }),
  };

  it("checks every field, fills in the defaults and leaves the rest undefined", () => {
    const run = () => {};
    const resolved: Resolved<typeof SHAPE> = resolveShape(SHAPE, { run });
    expect(resolved).toEqual({ run, limit: 2 });
    expect(resolved.onError).toBeUndefined();
  });

  it("names a required field left out, a non-function and an unknown key", () => {
    expect(() => resolveShape(SHAPE, {})).toThrow(
      "Expected `run` to be a function, got `undefined` (undefined)",
    );
    expect(() => resolveShape(SHAPE, { run: () => {}, onError: 1 })).toThrow(
      "Expected `onError` to be a function, got `1` (number)",
    );
    expect(() => resolveShape(SHAPE, { run: () => {}, limt: 1 })).toThrow(
      "Unknown option `limt`; did you mean `limit`?",
    );
    expect(() => resolveShape(SHAPE, null)).toThrow("Expected `options` to be an object, got `null` (null)");
  });

  it("lists required fields in the JSON Schema, functions not at all", () => {
    const json = object({ ...SHAPE, name: required(integer(1, 2, { doc: "a number" })) }, { doc: "" }).json;
    expect(json).toMatchObject({ required: ["name"], properties: { limit: { default: 2 } } });
    expect(Object.keys(json?.properties as object)).toEqual(["limit", "name"]);
  });
});

describe("lists and free text", () => {
  const ITEM = {
    name: required(text({ doc: 'its name, `""` allowed' })),
    size: integer(1, 9, { doc: "its size" }),
  };
  const LIST = list(object(ITEM, { doc: "" }), 1, 2, { doc: "the items" });

  it("checks each item with its index in the path, and the length", () => {
    expect(LIST.check("items", [{ name: "" }, { name: "b", size: 2 }])).toEqual([
      { name: "" },
      { name: "b", size: 2 },
    ]);
    expect(() => LIST.check("items", [{ name: "a" }, { name: 1 }])).toThrow(
      "Expected `items[1].name` to be a string, got `1` (number)",
    );
    expect(() => LIST.check("items", [])).toThrow("Expected `items` to be an array of 1 to 2 entries");
  });

  it("lists an item's fields in the README table, after the list's own row", () => {
    const names = [...optionTable("option", { items: LIST }).matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1]);
    expect(names).toEqual(["items", "items[].name", "items[].size"]);
  });
});
