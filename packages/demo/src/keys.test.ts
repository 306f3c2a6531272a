import { resolveScenario } from "@llm-scheduler/simulator";
import { describe, expect, it } from "vitest";
import { promptOf } from "./http-transport.js";
import { bearerOf, keyOf, keysFor } from "./keys.js";

describe("keys", () => {
  it("gives the chat app's key the chat priority and each batch tenant's key the batch priority", () => {
    const scenario = resolveScenario({ durationMs: 1, batch: { tenants: [{ name: "etl", items: 1 }] } });
    expect([...keysFor(scenario)]).toEqual([
      [keyOf("chat"), { tenant: "chat", priority: "interactive" }],
      [keyOf("etl"), { tenant: "etl", priority: "batch" }],
    ]);
  });

  it("reads a bearer token", () => {
    expect(bearerOf("Bearer sk-1")).toBe("sk-1");
    expect(bearerOf("bearer  sk-2 ")).toBe("sk-2");
    expect(bearerOf("Basic abc")).toBeUndefined();
    expect(bearerOf(undefined)).toBeUndefined();
  });
});

describe("promptOf", () => {
  it("writes about four characters per planned token, as the server estimates them", () => {
    expect(promptOf(50)).toHaveLength(200);
    expect(promptOf(0)).toBe("");
  });
});
