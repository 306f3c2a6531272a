import { createScheduler } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { accessFor, configFrom, generatedKeyLines, schedulerOptionsOf } from "./config.js";

const ADMIN = "sk-admin-0123456789abcdef";

describe("env-gateway configFrom", () => {
  it("makes a demo key and an admin key when none is configured, and gives the anonymous pool its caps", () => {
    const config = configFrom({});
    expect(config.generated?.apiKey).toMatch(/^sk-demo-[0-9a-f]{32}$/);
    expect(config.adminKey).toMatch(/^sk-admin-[0-9a-f]{32}$/);
    expect(config.keys.get(config.generated!.apiKey!)).toEqual({ tenant: "demo", priority: "interactive" });
    expect(generatedKeyLines(config).join("\n")).toContain(config.generated!.apiKey!);
    const open = configFrom({ UNKNOWN_KEYS: "anonymous", ADMIN_KEY: ADMIN, TENANT_TOKENS_PER_MINUTE: "600" });
    expect(open.generated).toBeUndefined();
    expect(open.keys.size).toBe(0);
    expect(schedulerOptionsOf(open)).toEqual({
      maxConcurrency: 8,
      tenantDefaults: { tokensPerMinute: 600 },
      tenants: { anonymous: { maxConcurrency: 1, tokensPerMinute: 20_000 } },
    });
  });

  it("names the variable and what is wrong, never a key", () => {
    expect(() => configFrom({ UNKNOWN_KEYS: "open" })).toThrow(
      "Expected `UNKNOWN_KEYS` to be `refuse` or `anonymous`, got `open`",
    );
    expect(() => configFrom({ ADMIN_KEY: "short" })).toThrow(/at least 16 characters/);
    expect(() => configFrom({ UNKNOWN_KEYS: "anonymous", API_KEYS: "k:anonymous:batch" })).toThrow(
      /`anonymous`/,
    );
    expect(() => configFrom({ MAX_CONCURRENCY: "abc" })).toThrow(
      "Expected `MAX_CONCURRENCY` to be a whole number from 1 to 100000, got `abc`",
    );
    expect(() => configFrom({ UPSTREAM_URL: "ftp://x" })).toThrow(/`UPSTREAM_URL` to be an http\(s\) URL/);
  });

  it("refuses a key whose priority the scheduler does not know, naming its tenant and not the key", async () => {
    const secret = "sk-live-SECRETSECRET";
    const config = configFrom({ API_KEYS: `${secret}:etl:urgent`, ADMIN_KEY: ADMIN });
    let message = "";
    try {
      accessFor(config, createScheduler());
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe("API key of tenant `etl` asks for an unknown priority `urgent`");
    expect(message).not.toContain(secret.slice(0, 6));
    const known = configFrom({ API_KEYS: `${secret}:etl:batch`, ADMIN_KEY: ADMIN });
    const access = accessFor(known, createScheduler());
    expect(await access.caller(`Bearer ${secret}`)).toEqual({ tenant: "etl", priority: "batch" });
  });
});
