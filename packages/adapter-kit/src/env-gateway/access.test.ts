import { describe, expect, it } from "vitest";
import { Access, bodyRefusal, isAdminPath, parseKeys } from "./access.js";

const KEY = "sk-chat-0123456789abcdef";
const ADMIN = "sk-admin-0123456789abcdef";

function access(unknownKeys: "refuse" | "anonymous" = "refuse"): Access {
  const keys = parseKeys(`${KEY}:chat-app:interactive`);
  return new Access({ keys, adminKey: ADMIN, unknownKeys, anonymousPriority: "interactive" });
}

describe("env-gateway access", () => {
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
    const basic = (text: string) => `Basic ${btoa(text)}`;
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

  it("never prints any part of a key in a malformed API_KEYS entry", () => {
    const secret = "sk-live-SECRETSECRET";
    expect(() => parseKeys(`${secret}:tenant-only`)).toThrow(
      "Expected `API_KEYS` entry 1 as key:tenant:priority",
    );
    expect(() => parseKeys(`${secret}:t:p:extra`)).toThrow(/entry 1/);
  });

  it("refuses a body that declares no length or too many bytes, before reading it", () => {
    expect(bodyRefusal("100", undefined, 1_024)).toBeUndefined();
    expect(bodyRefusal(undefined, undefined, 1_024)).toBeUndefined(); // no body at all
    expect(bodyRefusal(undefined, "chunked", 1_024)).toMatchObject({ status: 411, code: "length_required" });
    expect(bodyRefusal("1025", undefined, 1_024)).toMatchObject({ status: 413, code: "request_too_large" });
    expect(bodyRefusal("1e3", undefined, 1_024)).toMatchObject({ status: 413 });
  });
});
