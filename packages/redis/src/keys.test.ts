import { describe, expect, it } from "vitest";
import { LAYOUT_VERSION, tenantInRedis } from "./keys.js";
import { libraryCode } from "./lua-source.js";

describe("LAYOUT_VERSION", () => {
  it("is the version the Lua writes and checks", () => {
    expect(libraryCode()).toContain(`local LAYOUT = ${LAYOUT_VERSION}\n`);
  });
});

describe("tenantInRedis", () => {
  it("keeps names of up to 256 characters as they are, whatever they hold", () => {
    for (const tenant of ["team-a", "{llm}", "a:b", "名前", "x".repeat(256)]) {
      expect(tenantInRedis(tenant)).toBe(tenant);
    }
  });

  it("stores longer ones (a raw token) as a short digest that no short name can equal", () => {
    const token = `Bearer ${"e".repeat(930)}`;
    const stored = tenantInRedis(token);
    expect(stored.startsWith("\u0000sha256:")).toBe(true);
    expect(stored.slice("\u0000sha256:".length)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain("eeee");
    expect(tenantInRedis(token)).toBe(stored);
    expect(tenantInRedis(`${token}f`)).not.toBe(stored);
  });
});
