import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { schemaFileText, withConfigTables } from "../src/config/reference.js";
import { parseConfig } from "../src/config/resolve.js";

describe("the published schema and the README's reference", () => {
  it("gateway.schema.json is what the schema makes (run `pnpm gateway:reference` after a change)", () => {
    const file = readFileSync(new URL("../gateway.schema.json", import.meta.url), "utf8");
    expect(JSON.parse(file)).toEqual(JSON.parse(schemaFileText()));
  });

  it("the README's tables are what the schema makes", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(withConfigTables(readme)).toBe(readme);
  });

  it("describes a model's scheduler options with the library's own schema", () => {
    const schema = JSON.parse(schemaFileText());
    const model = schema.properties.models.additionalProperties;
    expect(model.additionalProperties).toBe(false);
    expect(Object.keys(model.properties)).toEqual(
      expect.arrayContaining(["upstreams", "priorities", "tenants", "adaptive"]),
    );
    expect(model.properties.priorities.additionalProperties.properties.maxQueue.anyOf).toBeDefined();
    expect(schema.properties.keys.items.required).toBeUndefined();
    expect(model.properties.store).toBeUndefined();
  });

  it("the README's example files are served as written", async () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const examples = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(examples).toHaveLength(2);
    const env = { CHAT_KEY: "k".repeat(32), ETL_KEY: "e".repeat(32), ADMIN_KEY: "a".repeat(32) };
    const [first, pool] = await Promise.all(examples.map((text) => parseConfig(text, env)));
    expect([...first!.models.keys()]).toContain("llama-3-8b");
    const model = pool!.models.get("llama-3-70b")!;
    expect(model.replicas.map((replica) => replica.id)).toEqual([
      "http://10.0.0.5:8000",
      "gpu-b",
      "http://10.0.0.7:8000",
    ]);
    expect(model.scheduler.maxConcurrency).toBe(32);
  });
});
