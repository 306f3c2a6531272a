import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolveConfig } from "@llm-scheduler/gateway";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { ADMIN_KEY, CHAT_KEY, type Harness, PRIORITIES, startGateway, until } from "./harness.js";

/**
 * Each model's `upstreams` are a pool of replicas (`@llm-scheduler/pool`) behind the gateway: retries
 * before the first byte, prefix routing, health in /readyz, per-replica gauges on /metrics, reload.
 */
let h: Harness | undefined;
let extra: Server | undefined;

afterEach(async () => {
  await h?.close();
  await new Promise((resolve) => (extra === undefined ? resolve(undefined) : extra.close(resolve)));
  h = undefined;
  extra = undefined;
});

const keys = [{ key: CHAT_KEY, tenant: "chat-app", priority: "interactive" }];
const admin = { key: ADMIN_KEY };

type Outcome = "complete" | "cut-after-bytes" | "failed-before-bytes";

/**
 * Streams one chat answer with the official client (no retries of its own), saying how it ended: the
 * answer's head (its 200) is the first byte the client gets, after which the request cannot move.
 */
async function streamOnce(client: OpenAI, i: number): Promise<Outcome> {
  let started = false;
  try {
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: `question ${i}` }],
      max_tokens: 8,
      stream: true,
    });
    started = true;
    for await (const chunk of stream) void chunk;
    return "complete";
  } catch {
    return started ? "cut-after-bytes" : "failed-before-bytes";
  }
}

describe("the gateway over a pool of replicas", () => {
  it("fails none of the requests that had no byte yet when a replica is killed mid-run", async () => {
    h = await startGateway(
      (sims) => ({
        models: {
          m: {
            upstreams: sims.map((sim) => sim.url),
            maxConcurrency: 4,
            priorities: PRIORITIES,
            pool: { health: { failures: 1, intervalMs: 0, ejectMs: 60_000 }, signals: false },
          },
        },
        keys,
      }),
      2,
      { parallel: 4, ttftMs: 2, tokenMs: 8 },
    );
    const sims = h.sims;
    const client = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: CHAT_KEY, maxRetries: 0 });
    const runs = Array.from({ length: 40 }, (_, i) => streamOnce(client, i));
    await until(() => sims[0]!.stats().served >= 2);
    await sims[0]!.crash();
    const outcomes = await Promise.all(runs);
    const count = (kind: Outcome) => outcomes.filter((o) => o === kind).length;
    expect(count("failed-before-bytes")).toBe(0);
    expect(count("cut-after-bytes")).toBeLessThanOrEqual(4); // at most what the killed replica held
    expect(count("complete")).toBe(40 - count("cut-after-bytes"));
    expect(sims[1]!.stats().maxInFlightSeen).toBeLessThanOrEqual(4);
    const pool = h.running.gateway.models().get("m")!.pool.metrics();
    expect(pool.replicas.map((r) => r.healthy)).toEqual([false, true]);
    expect(pool.maxConcurrency).toBe(4); // the killed replica's limit is gone from the model's
    const model = h.running.gateway.models().get("m")!;
    await until(() => model.scheduler.metrics().running === 0); // every slot given back
    expect(model.pool.metrics().replicas.map((r) => r.inFlight)).toEqual([0, 0]);
  }, 30_000);

  it("sends requests that share a prompt's prefix to the same replica", async () => {
    h = await startGateway(
      (sims) => ({
        models: { m: { upstreams: sims.map((sim) => sim.url), maxConcurrency: 4, priorities: PRIORITIES } },
        keys,
      }),
      2,
    );
    const client = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: CHAT_KEY, maxRetries: 0 });
    const ask = (system: string) =>
      client.chat.completions.create({
        model: "m",
        messages: [
          { role: "system", content: system },
          { role: "user", content: "What is due this quarter?" },
        ],
        max_tokens: 2,
      });
    for (const system of [
      "You are the tax assistant of ACME.",
      "You answer for the legal team of Initech.",
    ]) {
      const before = h.sims.map((sim) => sim.stats().received);
      for (let i = 0; i < 6; i++) await ask(system);
      const got = h.sims.map((sim, i) => sim.stats().received - before[i]!);
      expect([...got].sort()).toEqual([0, 6]); // all six on one replica, none on the other
    }
  }, 30_000);

  it("is not ready while every replica of a model is down, and ready again when one restarts", async () => {
    h = await startGateway(
      (sims) => ({
        models: {
          m: {
            upstreams: sims.map((sim) => sim.url),
            priorities: PRIORITIES,
            pool: {
              health: { intervalMs: 100, timeoutMs: 1_000, failures: 1, ejectMs: 200, maxEjectMs: 400 },
              signals: false,
            },
          },
        },
        keys,
      }),
      2,
    );
    const ready = async () => {
      const response = await fetch(`${h!.url}/readyz`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    expect(await ready()).toEqual({ status: 200, body: { ready: true, waiting: [], ejected: {} } });
    await Promise.all(h.sims.map((sim) => sim.crash()));
    await until(async () => (await ready()).status === 503);
    expect((await ready()).body).toEqual({
      ready: false,
      waiting: ["m"],
      ejected: { m: h.sims.map((sim) => sim.url) },
    });
    await h.sims[1]!.restart();
    await until(async () => (await ready()).status === 200);
    expect((await ready()).body.waiting).toEqual([]);
  }, 30_000);

  it("shows each replica's limit, load and health on /metrics", async () => {
    h = await startGateway(
      (sims) => ({
        models: { m: { upstreams: sims.map((sim) => sim.url), maxConcurrency: 3, priorities: PRIORITIES } },
        keys,
        admin,
      }),
      2,
    );
    const client = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: CHAT_KEY, maxRetries: 0 });
    await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 2,
    });
    const text = await (
      await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
    ).text();
    for (const sim of h.sims) {
      const series = (name: string) =>
        text.split("\n").find((line) => line.startsWith(name) && line.includes(`replica="${sim.url}"`));
      expect(series("llm_scheduler_replica_limit{")).toMatch(/ 3$/);
      expect(series("llm_scheduler_replica_healthy{")).toMatch(/ 1$/);
      expect(series("llm_scheduler_replica_in_flight{")).toMatch(/ 0$/);
      expect(series("llm_scheduler_replica_limit{")).toContain('model="m"');
    }
  }, 30_000);

  it("closes the old pool on a reload that changes the replicas: no checks of a removed one, no slot left", async () => {
    let checks = 0;
    extra = createServer((req, res) => {
      if (req.url === "/v1/models") checks += 1;
      res.writeHead(200, { "content-type": "application/json" }).end('{"object":"list","data":[]}');
    });
    await new Promise<void>((resolve) => extra!.listen(0, "127.0.0.1", resolve));
    const removed = `http://127.0.0.1:${(extra.address() as AddressInfo).port}`;
    const tree = (upstreams: string[]) => ({
      listen: { host: "127.0.0.1", port: 0 },
      models: {
        m: {
          upstreams,
          maxConcurrency: 2,
          priorities: PRIORITIES,
          pool: { health: { intervalMs: 50 }, signals: false, routing: "round-robin" },
        },
      },
      keys,
    });
    h = await startGateway((sims) => tree([sims[0]!.url, removed]), 1);
    const model = h.running.gateway.models().get("m")!;
    await until(() => checks >= 2);
    const old = model.pool;
    await h.running.gateway.reload(await resolveConfig(tree([h.sims[0]!.url])));
    expect(model.pool).not.toBe(old);
    expect(model.pool.metrics().replicas.map((r) => r.id)).toEqual([h.sims[0]!.url]);
    const seen = checks;
    const client = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: CHAT_KEY, maxRetries: 0 });
    for (let i = 0; i < 4; i++) {
      await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: `${i}` }] });
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(checks).toBe(seen); // the old pool's checks stopped with it
    expect(h.sims[0]!.stats().received).toBe(4);
    expect(model.scheduler.metrics().running).toBe(0);
    expect(model.scheduler.maxConcurrency).toBe(2); // one replica's limit: the new pool sets it
    expect(old.metrics().replicas.every((r) => r.inFlight === 0)).toBe(true);
  }, 30_000);
});
