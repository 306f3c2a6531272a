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

  it("the README's example file is served as written", async () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const example = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const config = await parseConfig(example!, {
      CHAT_KEY: "k".repeat(32),
      ETL_KEY: "e".repeat(32),
      ADMIN_KEY: "a".repeat(32),
    });
    expect([...config.models.keys()]).toContain("llama-3-8b");
  });
});
