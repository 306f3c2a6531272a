import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
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
      "step",
      "tick",
    ]);
  });

  it.each(names)("%s.lua opens with a header listing KEYS, ARGV and what it returns", (name) => {
    const text = readFileSync(new URL(`${name}.lua`, dir), "utf8");
    const header = text.slice(0, text.indexOf("]]"));
    expect(header.startsWith(`--[[ ${name}:`)).toBe(true);
    expect(header).toMatch(/\nKEYS: 1 state, 2 tw, 3 tickets, 4 leases, 5 instances\n/);
    expect(header).toMatch(/\nARGV: 1 prefix, 2 instance id, 3 now/);
    expect(header).toMatch(/\nReturns: /);
  });

  it.each(names)("%s.lua gets the shared library where it asks for it", (name) => {
    const source = scriptSource(name);
    expect(source).not.toContain("--@include");
    expect(source).toContain("local function pump()");
  });
});
