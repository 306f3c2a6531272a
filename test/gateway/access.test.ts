import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, CHAT_KEY, ETL_KEY, type Harness, PRIORITIES, startGateway } from "./harness.js";

/** Keys, priorities, the admin routes and the rejections of the gateway, over real HTTP. */
let h: Harness;
const chat = (key: string, headers: Record<string, string> = {}, body: Record<string, unknown> = {}) =>
  fetch(`${h.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "Hi" }], max_tokens: 2, ...body }),
  });
const lastRequest = () =>
  h
    .lines()
    .filter((line) => line.msg === "request")
    .at(-1)!;

beforeAll(async () => {
  const etlDigest = createHash("sha256").update(ETL_KEY).digest("hex");
  h = await startGateway(
    (sims) => ({
      models: {
        m: {
          upstreams: [sims[0]!.url],
          maxConcurrency: 1,
          priorities: {
            ...PRIORITIES,
            batch: { weight: 1, maxQueue: 1 },
            interactive: { weight: 5, maxQueue: 1 },
          },
          passPriority: { values: { interactive: 0, batch: 10 } },
        },
      },
      keys: [
        { key: CHAT_KEY, tenant: "chat-app", priority: "interactive" },
        { sha256: etlDigest, tenant: "etl", priority: "batch" },
      ],
      admin: { key: ADMIN_KEY },
      maxBodyBytes: 2048,
    }),
    1,
    { tokenMs: 50 },
  );
});
afterAll(() => h.close());

describe("keys and priorities", () => {
  it("serves a plain key and a sha256 key as their tenants, at their priority", async () => {
    expect((await chat(CHAT_KEY)).status).toBe(200);
    expect(lastRequest()).toMatchObject({ tenant: "chat-app", priority: "interactive" });
    expect((await chat(ETL_KEY)).status).toBe(200);
    expect(lastRequest()).toMatchObject({ tenant: "etl", priority: "batch" });
  });

  it("lets x-priority ask for less, never for more", async () => {
    expect((await chat(CHAT_KEY, { "x-priority": "batch" })).status).toBe(200);
    expect(lastRequest()).toMatchObject({ tenant: "chat-app", priority: "batch" });
    expect((await chat(ETL_KEY, { "x-priority": "interactive" })).status).toBe(200);
    expect(lastRequest()).toMatchObject({ tenant: "etl", priority: "batch" });
    const unknown = await chat(CHAT_KEY, { "x-priority": "urgent" });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error.code).toBeTypeOf("string");
  });

  it("refuses a missing, malformed or unknown key with 401 in OpenAI's shape", async () => {
    for (const authorization of ["", "Basic abc", `Bearer ${CHAT_KEY}x`]) {
      const answer = await fetch(`${h.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization },
        body: "{}",
      });
      expect(answer.status).toBe(401);
      expect(await answer.json()).toEqual({
        error: {
          message: "Incorrect or missing API key.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      });
    }
  });

  it("refuses a body over maxBodyBytes with 413 and a body without a model with 400", async () => {
    const big = await chat(CHAT_KEY, {}, { pad: "x".repeat(4096) });
    expect(big.status).toBe(413);
    const none = await fetch(`${h.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${CHAT_KEY}` },
      body: JSON.stringify({ messages: [] }),
    });
    expect(none.status).toBe(400);
    expect((await none.json()).error.param).toBe("model");
  });

  it("answers 429 with Retry-After when the priority's queue is full", async () => {
    const running = [chat(CHAT_KEY, {}, { max_tokens: 20 }), chat(CHAT_KEY, {}, { max_tokens: 20 })];
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await chat(CHAT_KEY);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await refused.json()).error.type).toBeTypeOf("string");
    await Promise.all((await Promise.all(running)).map((r) => r.text()));
  });
});

describe("the admin routes", () => {
  it("serve /metrics to the admin key only", async () => {
    expect((await fetch(`${h.url}/metrics`)).status).toBe(401);
    expect(
      (await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${CHAT_KEY}` } })).status,
    ).toBe(403);
    const metrics = await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(/llm_scheduler_requests_total\{[^}]*model="m"/);
    expect(text.match(/^# TYPE llm_scheduler_running /gm)).toHaveLength(1);
  });

  it("serve the dashboard to the admin key, its feed closed to others", async () => {
    const admin = { authorization: `Bearer ${ADMIN_KEY}` };
    const redirect = await fetch(`${h.url}/dashboard`, { headers: admin, redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("/dashboard/m");
    const snapshot = await fetch(`${h.url}/dashboard/m/api/snapshot`, { headers: admin });
    expect(snapshot.status).toBe(200);
    const { pool } = (await snapshot.json()) as { pool: { replicas: { healthy: boolean }[] } | null };
    expect(pool?.replicas.length).toBeGreaterThan(0); // the model's replicas, one row each
    const stranger = await fetch(`${h.url}/dashboard/m/api/snapshot`, {
      headers: { authorization: `Bearer ${CHAT_KEY}` },
    });
    expect(stranger.status).toBe(403);
  });

  it("answers /healthz and /readyz without a key", async () => {
    expect(await (await fetch(`${h.url}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${h.url}/readyz`)).json()).toEqual({ ready: true, waiting: [], ejected: {} });
  });

  it("never logs a key", () => {
    for (const key of [CHAT_KEY, ETL_KEY, ADMIN_KEY]) expect(h.logText()).not.toContain(key);
  });
});
