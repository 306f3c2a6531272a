import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { advance, items, ok, scripted, setup } from "../../test/helpers.js";
import type { ServedBatches } from "../create.js";
import { sameTenant } from "../same-tenant.js";
import { bearerKeyTenant } from "./identity.js";

let open: ServedBatches | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const BASE = "http://gateway.test/v1";
const line = JSON.stringify({ custom_id: "a", method: "POST", url: "/v1/chat/completions", body: {} });

function upload(key: string): Request {
  const form = new FormData();
  form.append("file", new Blob([line]), "in.jsonl");
  form.append("purpose", "batch");
  return new Request(`${BASE}/files`, {
    method: "POST",
    body: form,
    headers: { authorization: `Bearer ${key}` },
  });
}

const call = (path: string, key: string, init: RequestInit = {}): Request =>
  new Request(`${BASE}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });

const create = (fileId: string, key: string): Request =>
  call("/batches", key, {
    method: "POST",
    body: JSON.stringify({
      input_file_id: fileId,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    }),
    headers: { "content-type": "application/json" },
  });

describe("batches.fetch without a tenant function: closed", () => {
  it("serves nobody, says why once through onError, and leaves the programmatic API working", async () => {
    const { batches, errors, clock } = setup(scripted(ok).execute);
    open = batches;
    const made = await batches.create({ items: items(1), tenant: "eval" });
    const paths = [`/batches/${made.id}`, "/batches", `/batches/${made.id}/cancel`, "/files/file-x/content"];
    for (const path of paths) {
      const answer = await batches.fetch(
        call(path, "any-key", { method: path.endsWith("cancel") ? "POST" : "GET" }),
      );
      expect(answer.status, path).toBe(401);
      expect((await answer.json()).error).toMatchObject({
        type: "invalid_request_error",
        code: "invalid_api_key",
      });
    }
    expect((await batches.fetch(upload("any-key"))).status).toBe(401);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain("Expected `tenant` to be a function");
    expect(String(errors[0])).toContain('tenant: () => "default"');
    expect((errors[0] as { code?: string }).code).toBe("INVALID_OPTION");
    await advance(clock, 100);
    expect((await batches.get(made.id))?.status).toBe("completed");
  });

  it('opens to every caller as one tenant when `tenant: () => "default"` is written on purpose', async () => {
    const { batches } = setup(scripted(ok).execute, { tenant: () => "default" });
    open = batches;
    const file = (await (await batches.fetch(upload("k1"))).json()) as { id: string };
    expect((await batches.fetch(call(`/files/${file.id}`, "k2"))).status).toBe(200);
  });
});

describe("identity at full strength", () => {
  it("derives a 256-bit tenant from a Bearer key with Web Crypto, none without one", async () => {
    const request = (authorization?: string) =>
      new Request(BASE, { headers: authorization === undefined ? {} : { authorization } });
    expect(await bearerKeyTenant(request("Bearer abc"))).toBe(
      "key-sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(await bearerKeyTenant(request())).toBeUndefined();
    expect(await bearerKeyTenant(request("Basic abc"))).toBeUndefined();
    expect(await bearerKeyTenant(request("Bearer "))).toBeUndefined();
    expect(await bearerKeyTenant(request("Bearer abd"))).not.toBe(
      await bearerKeyTenant(request("Bearer abc")),
    );
  });

  it("keeps one key's files and batches from another key", async () => {
    const { batches } = setup(scripted(ok).execute, { tenant: bearerKeyTenant });
    open = batches;
    const file = (await (await batches.fetch(upload("sk-first"))).json()) as { id: string };
    const batch = (await (await batches.fetch(create(file.id, "sk-first"))).json()) as { id: string };
    for (const path of [`/files/${file.id}`, `/files/${file.id}/content`, `/batches/${batch.id}`]) {
      expect((await batches.fetch(call(path, "sk-second"))).status, path).toBe(404);
      expect((await batches.fetch(call(path, "sk-first"))).status, path).toBe(200);
    }
    expect((await batches.fetch(create(file.id, "sk-second"))).status).toBe(404);
    expect((await batches.fetch(call(`/files/${file.id}`, "sk-second", { method: "DELETE" }))).status).toBe(
      404,
    );
    expect((await batches.fetch(call("/batches", "no-key", { headers: { authorization: "" } }))).status).toBe(
      401,
    );
  });

  it("compares tenants over every code unit, whatever their lengths (lone surrogates too)", () => {
    expect(sameTenant("key-sha256:ab", "key-sha256:ab")).toBe(true);
    expect(sameTenant("key-sha256:ab", "key-sha256:ac")).toBe(false);
    expect(sameTenant("a", "a\u0000")).toBe(false);
    expect(sameTenant("", "")).toBe(true);
    expect(sameTenant("é", "e\u0301")).toBe(false);
    expect(sameTenant("team-é", "team-é")).toBe(true);
    expect(sameTenant("t\uD800", "t\uDC00")).toBe(false);
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "é", "\uD800", "\uDC00", "😀"), maxLength: 3 }),
        fc.string({ unit: fc.constantFrom("a", "é", "\uD800", "\uDC00", "😀"), maxLength: 3 }),
        (a, b) => {
          expect(sameTenant(a, b)).toBe(a === b);
          expect(sameTenant(a, a)).toBe(true);
        },
      ),
    );
  });

  it("never echoes the Authorization key or its tenant in an error body", async () => {
    const key = "sk-SECRET-0123456789abcdef";
    const tenant = (await bearerKeyTenant(call("/", key)))!;
    const { batches } = setup(scripted(ok).execute, { tenant: bearerKeyTenant, maxBodyBytes: 1_024 });
    open = batches;
    const file = (await (await batches.fetch(upload(key))).json()) as { id: string };
    const json = (body: string): RequestInit => ({
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    const answers = [
      await batches.fetch(call("/batches/batch_nope", key)),
      await batches.fetch(call("/files/file-nope/content", key)),
      await batches.fetch(call("/batches", key, json("{"))),
      await batches.fetch(
        call(
          "/batches",
          key,
          json(
            JSON.stringify({
              input_file_id: "file-nope",
              endpoint: "/v1/chat/completions",
              completion_window: "24h",
            }),
          ),
        ),
      ),
      await batches.fetch(call("/batches", key, json(JSON.stringify({ extra: 1 })))),
      await batches.fetch(
        call(
          "/batches",
          key,
          json(
            JSON.stringify({ input_file_id: file.id, endpoint: "/v1/../admin", completion_window: "24h" }),
          ),
        ),
      ),
      await batches.fetch(call("/batches", key, json("x".repeat(2_000)))),
      await batches.fetch(call("/batches?limit=0", key)),
      await batches.fetch(call(`/batches/${file.id}`, key, { method: "DELETE" })),
      await batches.fetch(call("/unknown", key)),
      await batches.fetch(call("/batches", `${key}x`, { headers: { authorization: `Basic ${key}` } })),
    ];
    for (const answer of answers) {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      const text = await answer.text();
      expect(text).not.toContain("SECRET");
      expect(text).not.toContain(tenant.slice(11, 27));
    }
  });
});

describe("a tenant function that answers too long an id", () => {
  it("is a 500 that shows neither the id nor the key, its length going to onError", async () => {
    const key = `sk-${"S".repeat(300)}`;
    const { batches, errors } = setup(scripted(ok).execute, {
      tenant: (request) => request.headers.get("authorization")?.slice(7),
    });
    open = batches;
    const answer = await batches.fetch(upload(key));
    expect(answer.status).toBe(500);
    expect(await answer.text()).not.toContain("SSSS");
    expect(String(errors[0])).toContain(
      "Expected `tenant` to be a function answering at most 256 characters",
    );
    expect(String(errors[0])).not.toContain("SSSS");
  });
});
