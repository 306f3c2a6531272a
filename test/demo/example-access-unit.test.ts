import { readFileSync } from "node:fs";
import { createScheduler } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { Access, bodyRefusal, isAdminPath, parseKeys } from "../../examples/express-openai-proxy/access.js";
import { configFrom, schedulerOptionsOf } from "../../examples/express-openai-proxy/config.js";
import { createApp } from "../../examples/hono-gateway/app.js";

const KEY = "sk-chat-0123456789abcdef";
const ADMIN = "sk-admin-0123456789abcdef";

function access(unknownKeys: "refuse" | "anonymous" = "refuse"): Access {
  const keys = parseKeys(`${KEY}:chat-app:interactive`);
  return new Access({ keys, adminKey: ADMIN, unknownKeys, anonymousPriority: "interactive" });
}

describe("the examples' access rules (examples/*/access.ts)", () => {
  it("names a configured tenant for a known key, and refuses others without a tenant derived from them", async () => {
    expect(await access().caller(`Bearer ${KEY}`)).toEqual({ tenant: "chat-app", priority: "interactive" });
    expect(await access().caller("Bearer sk-other")).toBe("Unknown API key");
    expect(await access().caller(`Bearer ${KEY}x`)).toBe("Unknown API key");
    expect(await access().caller(undefined)).toMatch(/^Missing API key/);
    expect(await access("anonymous").caller("Bearer sk-other")).toEqual({
      tenant: "anonymous",
      priority: "interactive",
    });
    expect(await access("anonymous").owner("Bearer sk-other")).toBeUndefined(); // the pool owns no files
    expect(await access("anonymous").owner(`Bearer ${KEY}`)).toBe("chat-app");
  });

  it("opens the admin paths to the admin key only, as a bearer token or a Basic password", async () => {
    const basic = (text: string) => `Basic ${Buffer.from(text).toString("base64")}`;
    expect(await access().admin(`Bearer ${ADMIN}`)).toBe(true);
    expect(await access().admin(basic(`anyone:${ADMIN}`))).toBe(true);
    for (const wrong of [
      `Bearer ${KEY}`,
      `Bearer ${ADMIN.slice(0, -1)}`,
      basic(ADMIN),
      "Basic !!",
      undefined,
    ]) {
      expect(await access().admin(wrong)).toBe(false);
    }
    for (const path of ["/metrics", "/METRICS/", "/metrics.json", "/dashboard", "/Dashboard/api/events"]) {
      expect(isAdminPath(path), path).toBe(true);
    }
    expect(isAdminPath("/v1/chat/completions")).toBe(false);
    expect(isAdminPath("/health")).toBe(false);
  });

  it("never prints any part of a key in a configuration error", () => {
    const secret = "sk-live-SECRETSECRET";
    expect(() => parseKeys(`${secret}:tenant-only`)).toThrow(
      "Expected `API_KEYS` entry 1 as key:tenant:priority",
    );
    expect(() => parseKeys(`${secret}:t:p:extra`)).toThrow(/entry 1/);
    const config = configFrom({ API_KEYS: `${secret}:etl:urgent`, ADMIN_KEY: ADMIN });
    let message = "";
    try {
      createApp(config, createScheduler());
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe("API key of tenant `etl` asks for an unknown priority `urgent`");
    expect(message).not.toContain(secret.slice(0, 6));
  });

  it("refuses a body that declares no length or too many bytes, before reading it", () => {
    expect(bodyRefusal("100", undefined, 1_024)).toBeUndefined();
    expect(bodyRefusal(undefined, undefined, 1_024)).toBeUndefined(); // no body at all
    expect(bodyRefusal(undefined, "chunked", 1_024)).toMatchObject({ status: 411, code: "length_required" });
    expect(bodyRefusal("1025", undefined, 1_024)).toMatchObject({ status: 413, code: "request_too_large" });
    expect(bodyRefusal("1e3", undefined, 1_024)).toMatchObject({ status: 413 });
  });

  it("makes a demo key and an admin key when none is configured, and gives the anonymous pool its caps", () => {
    const config = configFrom({});
    expect(config.generated?.apiKey).toMatch(/^sk-demo-[0-9a-f]{32}$/);
    expect(config.adminKey).toMatch(/^sk-admin-[0-9a-f]{32}$/);
    expect(config.keys.get(config.generated!.apiKey!)).toEqual({ tenant: "demo", priority: "interactive" });
    const open = configFrom({ UNKNOWN_KEYS: "anonymous", ADMIN_KEY: ADMIN, TENANT_TOKENS_PER_MINUTE: "600" });
    expect(open.generated).toBeUndefined();
    expect(open.keys.size).toBe(0);
    expect(schedulerOptionsOf(open)).toEqual({
      maxConcurrency: 8,
      tenantDefaults: { tokensPerMinute: 600 },
      tenants: { anonymous: { maxConcurrency: 1, tokensPerMinute: 20_000 } },
    });
    expect(() => configFrom({ UNKNOWN_KEYS: "open" })).toThrow(
      "Expected `UNKNOWN_KEYS` to be `refuse` or `anonymous`, got `open`",
    );
    expect(() => configFrom({ ADMIN_KEY: "short" })).toThrow(/at least 16 characters/);
    expect(() => configFrom({ UNKNOWN_KEYS: "anonymous", API_KEYS: "k:anonymous:batch" })).toThrow(
      /`anonymous`/,
    );
  });

  it("is the same file in every example that copies it", () => {
    const read = (path: string) => readFileSync(new URL(`../../examples/${path}`, import.meta.url), "utf8");
    for (const file of ["access.ts", "config.ts"]) {
      for (const example of ["koa-gateway", "hono-gateway"]) {
        expect(read(`${example}/${file}`), `${example}/${file}`).toBe(read(`express-openai-proxy/${file}`));
      }
    }
    expect(read("multi-instance/access.ts")).toBe(read("express-openai-proxy/access.ts"));
  });
});
