import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { functionLibrary, LIBRARY_PARTS } from "./lua-source.js";
import { type ScriptName, scriptSource } from "./scripts.js";

const dir = new URL("./lua/", import.meta.url);
const names = readdirSync(dir)
  .filter((file) => file.endsWith(".lua"))
  .map((file) => file.slice(0, -4) as ScriptName);

describe("Lua scripts", () => {
  it("are one file per operation", () => {
    expect(names.sort()).toEqual([
      "adopt",
      "configure",
      "enqueue",
      "leave",
      "limit",
      "release",
      "remove",
      "spare",
      "step",
      "tick",
      "yield",
    ]);
  });

  it.each(names)("%s.lua opens with a header listing KEYS, ARGV and what it returns", (name) => {
    const text = readFileSync(new URL(`${name}.lua`, dir), "utf8");
    const header = text.slice(0, text.indexOf("]]"));
    expect(header.startsWith(`--[[ ${name}:`)).toBe(true);
    expect(header).toMatch(/\nKEYS: 1 state, 2 tw, 3 leases, 4 instances\n/);
    expect(header).toMatch(/\nARGV: 1 prefix, 2 instance id, 3 now/);
    expect(header).toMatch(/\nReturns: /);
  });

  it.each(names)("%s.lua gets the shared library where it asks for it", (name) => {
    const source = scriptSource(name);
    expect(source).not.toContain("--@include");
    expect(source).toContain("local function pump()");
  });

  it("make one Function library whose name carries a digest of its source, one function per operation", () => {
    const library = functionLibrary();
    expect(library.name).toMatch(/^llm_scheduler_[0-9a-f]{16}$/);
    expect(library.source.startsWith(`#!lua name=${library.name}\n`)).toBe(true);
    for (const name of names) {
      expect(library.functions[name]).toBe(`${library.name}_${name}`);
      expect(library.source).toContain(
        `redis.register_function("${library.name}_${name}", entry(op_${name}))`,
      );
    }
    expect(functionLibrary({ release: "return 1" }).name).not.toBe(library.name);
  });

  // The library is defined once and serves every call: a top-level local other than a function or a
  // constant would carry one call's state into the next, unless reset() (base.lua) sets it afresh.
  it.each(LIBRARY_PARTS)("lib/%s.lua keeps no per-call state outside reset()", (part) => {
    const constants = ["local DELETED = {}"];
    const locals = readFileSync(new URL(`lib/${part}.lua`, dir), "utf8")
      .split("\n")
      .filter((line) => line.startsWith("local ") && !line.startsWith("local function "))
      .filter((line) => !constants.includes(line))
      .filter((line) => !/^local [A-Z_]+ = (\d+|1 \/ 0|"[^"]*")( -- .*)?$/.test(line)); // a number or string constant
    // the decoded configuration is kept with the exact text it came from (config_of): not a call's state
    const cache = "local CONFIG_TEXT, CONFIG = nil, nil";
    if (part === "base") expect(locals.filter((line) => line.includes("=") && line !== cache)).toEqual([]);
    else expect(locals).toEqual([]);
  });
});
